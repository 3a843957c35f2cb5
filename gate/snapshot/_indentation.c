/* A kubectl List without its indentation, for the typed reader to decode.
 *
 * kubectl indents a List by four spaces a level: 62% of a 2.4 GB List's bytes are the spaces
 * that start its lines, and msgspec passes over each of them one at a time. Every space
 * that directly follows a line feed is dropped here; the line feeds themselves stay.
 *
 * Why that keeps the text's meaning and its validity, for any bytes: JSON allows no raw
 * line feed inside a string, so in a valid text a line feed and the spaces after it are
 * whitespace between tokens, and dropping the spaces changes no value. In an invalid text
 * the line feed stays where it was: a string it breaks is still broken, and two tokens it
 * separates are still separate. The text given is valid exactly when the text returned is.
 *
 * Three ways do it, the first the processor runs chosen when the module loads: 64 bytes
 * at a time packed by one instruction (AVX-512 VBMI2), 64 bytes at a time copied a kept
 * run at a time (AVX2), and a line at a time. A line of a List is 34 bytes on average,
 * 20 of them indentation: a line at a time took 0.53 s of a reader's 1.8 s on half of a
 * 2.4 GB List. The vector ways find the spaces to drop for a block at once: of the block's
 * spaces, the runs that start right after a line feed (or go on from the block before),
 * found by adding each run's first bit to the spaces so that the carry clears exactly that
 * run. ``unindented_by`` runs a way by name, for the tests to hold each to the others.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* The vector ways need the compilers that know AVX-512 VBMI2 (GCC 8, Clang 6). */
#if defined(__x86_64__) && ((defined(__clang__) && __clang_major__ >= 6) || \
                            (!defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 8))
#define VECTOR_WAYS 1
#include <immintrin.h>


#endif

/* Bytes ``p`` to ``end`` into ``out``; ``dropping`` says whether the byte before ``p`` was a
 * line feed or a dropped space, and is left saying so of the last byte. Returns the end of
 * what was written. */
typedef char *(*Way)(const char *p, const char *end, char *out, int *dropping);

static char *
by_lines(const char *p, const char *end, char *out, int *dropping)
{
    const uint64_t spaces = 0x2020202020202020ULL;
    while (p < end) {
        if (*dropping) {
            /* Eight spaces at a time: an indentation is 20 of them on average. */
            uint64_t word;
            while (end - p >= 8 && (memcpy(&word, p, 8), word == spaces)) {
                p += 8;
            }
            while (p < end && *p == ' ') {
                p++;
            }
            if (p == end) {
                break;
            }
            *dropping = 0;
        }
        const char *feed = memchr(p, '\n', (size_t)(end - p));
        if (feed == NULL) {
            memcpy(out, p, (size_t)(end - p));
            out += end - p;
            break;
        }
        size_t line = (size_t)(feed - p) + 1;
        memcpy(out, p, line);
        out += line;
        p = feed + 1;
        *dropping = 1;
    }
    return out;
}

#ifdef VECTOR_WAYS

/* The block's bytes to drop: its spaces in runs that start after a line feed, or at its
 * first byte when ``carry`` (the byte before was a line feed or a dropped space). A run's
 * first bit added to the spaces carries through the run and clears it. */
static inline uint64_t
dropped(uint64_t spaces, uint64_t feeds, uint64_t carry)
{
    uint64_t starts = ((feeds << 1) | carry) & spaces;
    return spaces & ~(spaces + starts);
}

__attribute__((target("avx512f,avx512bw,avx512vbmi2,popcnt"))) static char *
by_packing(const char *p, const char *end, char *out, int *dropping)
{
    const __m512i space = _mm512_set1_epi8(' '), feed = _mm512_set1_epi8('\n');
    uint64_t carry = (uint64_t)*dropping;
    /* Each store writes 64 bytes at ``out``, which never runs ahead of ``p``. */
    while (end - p >= 64) {
        __m512i block = _mm512_loadu_si512((const void *)p);
        uint64_t spaces = _mm512_cmpeq_epi8_mask(block, space);
        uint64_t feeds = _mm512_cmpeq_epi8_mask(block, feed);
        uint64_t drop = dropped(spaces, feeds, carry);
        _mm512_storeu_si512((void *)out, _mm512_maskz_compress_epi8(~drop, block));
        out += __builtin_popcountll(~drop);
        carry = ((feeds | drop) >> 63) & 1;
        p += 64;
    }
    *dropping = (int)carry;
    return by_lines(p, end, out, dropping);
}

__attribute__((target("avx2,bmi,popcnt"))) static char *
by_runs(const char *p, const char *end, char *out, int *dropping)
{
    const __m256i space = _mm256_set1_epi8(' '), feed = _mm256_set1_epi8('\n');
    uint64_t carry = (uint64_t)*dropping;
    /* A kept run is copied 32 bytes at a time from inside a block: up to 31 bytes past it
     * are read, and written at ``out``, which never runs ahead of ``p``. */
    while (end - p >= 96) {
        __m256i low = _mm256_loadu_si256((const __m256i *)p);
        __m256i high = _mm256_loadu_si256((const __m256i *)(p + 32));
        uint64_t spaces =
            (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(low, space)) |
            (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(high, space)) << 32;
        uint64_t feeds =
            (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(low, feed)) |
            (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(high, feed)) << 32;
        uint64_t drop = dropped(spaces, feeds, carry);
        uint64_t keep = ~drop;
        if (drop == 0) {
            _mm256_storeu_si256((__m256i *)out, low);
            _mm256_storeu_si256((__m256i *)(out + 32), high);
            out += 64;
            keep = 0;
        }
        while (keep != 0) {
            unsigned first = (unsigned)__builtin_ctzll(keep);
            /* ``keep`` has no bit past 63, so the run ends by bit 63 and ``~run`` has a bit. */
            uint64_t run = keep >> first;
            unsigned length = (unsigned)__builtin_ctzll(~run);
            for (unsigned done = 0; done < length; done += 32) {
                __m256i bytes = _mm256_loadu_si256((const __m256i *)(p + first + done));
                _mm256_storeu_si256((__m256i *)(out + done), bytes);
            }
            out += length;
            keep = first + length >= 64 ? 0 : keep & (~0ULL << (first + length));
        }
        carry = ((feeds | drop) >> 63) & 1;
        p += 64;
    }
    *dropping = (int)carry;
    return by_lines(p, end, out, dropping);
}

#endif

static const struct {
    const char *name;
    Way way;
} ways[] = {
#ifdef VECTOR_WAYS
    {"packing", by_packing},
    {"runs", by_runs},
#endif
    {"lines", by_lines},
};
#define WAYS ((Py_ssize_t)(sizeof ways / sizeof ways[0]))

static int
runs_here(Py_ssize_t index)
{
#ifdef VECTOR_WAYS
    __builtin_cpu_init();
    if (ways[index].way == by_packing) {
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("popcnt");
    }
    if (ways[index].way == by_runs) {
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
               __builtin_cpu_supports("popcnt");
    }
#endif
    return 1;
}

static Way best = by_lines;

static PyObject *
unindent(PyObject *arg, Way way)
{
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    PyObject *result = PyBytes_FromStringAndSize(NULL, view.len);
    if (result == NULL) {
        PyBuffer_Release(&view);
        return NULL;
    }
    const char *p = view.buf;
    char *start = PyBytes_AS_STRING(result);
    int dropping = 0;
    char *out = way(p, p + view.len, start, &dropping);
    PyBuffer_Release(&view);
    if (_PyBytes_Resize(&result, out - start) < 0) {
        return NULL;
    }
    return result;
}

static PyObject *
unindented(PyObject *module, PyObject *arg)
{
    return unindent(arg, best);
}

static PyObject *
unindented_by(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    const char *name;
    if (nargs != 2 || (name = PyUnicode_AsUTF8(args[1])) == NULL) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_TypeError, "unindented_by(text, way, /)");
        }
        return NULL;
    }
    for (Py_ssize_t i = 0; i < WAYS; i++) {
        if (strcmp(ways[i].name, name) == 0 && runs_here(i)) {
            return unindent(args[0], ways[i].way);
        }
    }
    PyErr_Format(PyExc_ValueError, "no way %R runs here", args[1]);
    return NULL;
}

static PyObject *
ways_here(PyObject *module, PyObject *unused)
{
    PyObject *names = PyList_New(0);
    for (Py_ssize_t i = 0; names != NULL && i < WAYS; i++) {
        if (!runs_here(i)) {
            continue;
        }
        PyObject *name = PyUnicode_FromString(ways[i].name);
        if (name == NULL || PyList_Append(names, name) < 0) {
            Py_XDECREF(name);
            Py_CLEAR(names);
            break;
        }
        Py_DECREF(name);
    }
    if (names == NULL) {
        return NULL;
    }
    PyObject *found = PyList_AsTuple(names);
    Py_DECREF(names);
    return found;
}

static PyMethodDef methods[] = {
    {"unindented", unindented, METH_O,
     "unindented(text, /)\n--\n\n"
     "The bytes of ``text`` less every space that directly follows a line feed."},
    {"unindented_by", (PyCFunction)(void (*)(void))unindented_by, METH_FASTCALL,
     "unindented_by(text, way, /)\n--\n\n"
     "What ``unindented`` returns, worked out the named way (one of ``ways()``)."},
    {"ways", ways_here, METH_NOARGS,
     "ways()\n--\n\n"
     "The ways this processor runs, the one ``unindented`` takes first."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "gate.snapshot._indentation",
    "A kubectl List's text without its indentation (see the source for why).",
    0,
    methods,
};

PyMODINIT_FUNC
PyInit__indentation(void)
{
    for (Py_ssize_t i = 0; i < WAYS; i++) {
        if (runs_here(i)) {
            best = ways[i].way;
            break;
        }
    }
    return PyModule_Create(&module);
}
