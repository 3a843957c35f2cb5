/* A kubectl List's pods counted by the node they run on, as ``_PodTotals.add`` counts them.
 *
 * The typed reader decodes a List's pods with msgspec and then, pod by pod, keys each by the
 * texts its requests and ports depend on (its template) and by the parts it shares with its
 * workload's other pods, and notes it on its node. Written in Python that took 6 us a pod,
 * two thirds of it the interpreter's own work between the calls: a 150,000-pod List spent
 * 0.9 s of CPU there. This is the same loop, for the pods whose texts were met before (nearly
 * all): whatever is met for the first time, and whatever is rare (a pod resizing, a pod with
 * pod affinity terms), is handed to the Python functions that ``_PodTotals.add`` calls, so
 * each rule stays written once, in Python. The tests hold the two loops to the same
 * readings on any generated cluster and on every refused shape.
 *
 * ``counted(rules, totals, items, start)`` counts ``items[start:]`` up to the first item
 * that is not a Pod and returns its position (``len(items)`` when all were). ``rules`` is
 * the tuple ``stream._POD_RULES`` builds once; ``totals`` the ``_PodTotals`` counted into.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#include <structmember.h>

/* What ``rules`` holds, in its order. */
enum {
    RULE_UNSET,        /* msgspec.UNSET */
    RULE_REFUSED,      /* NotAccepted: the reference reader must read the file */
    RULE_ENCODE,       /* a container list's text of what the checks read (_ENCODE) */
    RULE_EMPTY_SPEC,   /* the spec of a pod that has none */
    RULE_RESIZED,      /* _resized(status), for a pod whose container statuses report resources */
    RULE_AFFINITY,     /* _affinity_texts(affinity), for a pod with an affinity */
    RULE_TERMINAL,     /* the phases whose pods are not counted */
    RULE_MOUNTING,     /* the texts a volume list that may mount a claim or a disk holds */
    RULE_ARRAY_OR_NULL, /* the first bytes a volume list may start with */
    RULES
};

static PyObject *names_[24];
enum {
    N_KIND, N_METADATA, N_NAME, N_SPEC, N_STATUS, N_CONTAINERS, N_INIT_CONTAINERS,
    N_RESOURCES, N_OVERHEAD, N_CONTAINER_STATUSES, N_INIT_CONTAINER_STATUSES, N_AFFINITY,
    N_LABELS, N_OWNER_REFERENCES, N_NAMESPACE, N_PRIORITY, N_VOLUMES, N_NODE_NAME, N_PHASE,
    N_DELETION_TIMESTAMP, N_START_TIME, N_POD, NAMES
};
static const char *const spelled[NAMES] = {
    "kind", "metadata", "name", "spec", "status", "containers", "initContainers",
    "resources", "overhead", "containerStatuses", "initContainerStatuses", "affinity",
    "labels", "ownerReferences", "namespace", "priority", "volumes", "nodeName", "phase",
    "deletionTimestamp", "startTime", "Pod",
};

/* A decoded struct's fields, read where the struct keeps them: each is a slot (a member of
 * its type), and reading it through the attribute machinery cost a pod more than a
 * microsecond of its five. Where a type's field is no plain slot, or not set, the
 * attribute is asked for as usual. */
#define TYPES 8
static struct {
    PyTypeObject *type;
    Py_ssize_t offsets[NAMES];
} slots_[TYPES];

static Py_ssize_t
slot_offset(PyTypeObject *type, PyObject *name)
{
    PyObject *found = PyObject_GetAttr((PyObject *)type, name);
    if (found == NULL) {
        PyErr_Clear();
        return -1;
    }
    Py_ssize_t offset = -1;
    if (Py_IS_TYPE(found, &PyMemberDescr_Type)) {
        PyMemberDef *member = ((PyMemberDescrObject *)found)->d_member;
        if (member->type == T_OBJECT_EX && member->offset > 0) {
            offset = member->offset;
        }
    }
    Py_DECREF(found);
    return offset;
}

/* ``obj.<names_[which]>``: a new reference, NULL with an exception set. */
static PyObject *
field_of(PyObject *obj, int which)
{
    PyTypeObject *type = Py_TYPE(obj);
    for (int i = 0; i < TYPES; i++) {
        if (slots_[i].type == NULL) {
            slots_[i].type = (PyTypeObject *)Py_NewRef(type); /* kept: an address stays its */
            for (int n = 0; n < NAMES; n++) {
                slots_[i].offsets[n] = slot_offset(type, names_[n]);
            }
        }
        if (slots_[i].type == type) {
            Py_ssize_t offset = slots_[i].offsets[which];
            PyObject *value = offset < 0 ? NULL : *(PyObject **)((char *)obj + offset);
            if (value != NULL) {
                return Py_NewRef(value);
            }
            break;
        }
    }
    return PyObject_GetAttr(obj, names_[which]);
}

/* What ``_PodTotals`` holds that the loop reads and writes, taken once a call. */
typedef struct {
    PyObject *templates, *totals, *on_node, *unreadable, *names, *nodes, *terminating,
        *started, *parts, *mounting, *numbers, *template, *shared_add;
} Totals;

static const char *const held[] = {
    "templates", "totals", "on_node", "unreadable", "names", "nodes", "terminating",
    "started", "parts", "mounting",
};

static void
release(Totals *t)
{
    PyObject **all[] = {&t->templates, &t->totals, &t->on_node, &t->unreadable, &t->names,
                        &t->nodes, &t->terminating, &t->started, &t->parts, &t->mounting,
                        &t->numbers, &t->template, &t->shared_add};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        Py_CLEAR(*all[i]);
    }
}

static int
taken(PyObject *self, Totals *t)
{
    memset(t, 0, sizeof *t);
    PyObject **slots[] = {&t->templates, &t->totals, &t->on_node, &t->unreadable, &t->names,
                          &t->nodes, &t->terminating, &t->started, &t->parts, &t->mounting};
    for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++) {
        if ((*slots[i] = PyObject_GetAttrString(self, held[i])) == NULL) {
            return -1;
        }
    }
    if (!PyDict_Check(t->templates) || !PyList_Check(t->totals) || !PyDict_Check(t->on_node) ||
        !PySet_Check(t->unreadable) || !PyList_Check(t->names) || !PyList_Check(t->nodes) ||
        !PyList_Check(t->terminating) || !PyList_Check(t->started) || !PyList_Check(t->parts) ||
        !PyDict_Check(t->mounting)) {
        PyErr_SetString(PyExc_TypeError, "counted: not a _PodTotals");
        return -1;
    }
    PyObject *shared = PyObject_GetAttrString(self, "shared");
    if (shared == NULL) {
        return -1;
    }
    t->numbers = PyObject_GetAttrString(shared, "numbers");
    t->shared_add = PyObject_GetAttrString(shared, "add");
    Py_DECREF(shared);
    t->template = PyObject_GetAttrString(self, "_template");
    if (t->numbers == NULL || t->shared_add == NULL || t->template == NULL) {
        return -1;
    }
    if (!PyDict_Check(t->numbers)) {
        PyErr_SetString(PyExc_TypeError, "counted: not a _PodTotals");
        return -1;
    }
    return 0;
}

/* ``None if raw is UNSET else b"" + raw``: a new reference, NULL on error. */
static PyObject *
text_of(PyObject *raw, PyObject *unset)
{
    if (raw == unset) {
        Py_RETURN_NONE;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(raw, &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    PyObject *found = PyBytes_FromStringAndSize(view.buf, view.len);
    PyBuffer_Release(&view);
    return found;
}

/* ``encode(listed) if listed else None``. */
static PyObject *
listed_text(PyObject *listed, PyObject *encode)
{
    if (PyList_Check(listed) && PyList_GET_SIZE(listed) > 0) {
        return PyObject_CallOneArg(encode, listed);
    }
    int truth = PyObject_IsTrue(listed);
    if (truth < 0) {
        return NULL;
    }
    if (truth) {
        return PyObject_CallOneArg(encode, listed);
    }
    Py_RETURN_NONE;
}

/* Whether an entry of ``statuses`` (a list, or anything else: none) reports resources. */
static int
reports_resources(PyObject *statuses, PyObject *unset)
{
    if (!PyList_Check(statuses)) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(statuses); i++) {
        PyObject *resources = field_of(PyList_GET_ITEM(statuses, i), N_RESOURCES);
        if (resources == NULL) {
            return -1;
        }
        int set = resources != unset;
        Py_DECREF(resources);
        if (set) {
            return 1;
        }
    }
    return 0;
}

/* ``_resized(status)``: None for a pod none of whose statuses report resources, without
 * the call; the call otherwise. */
static PyObject *
resized(PyObject *status, PyObject *const *rules)
{
    PyObject *unset = rules[RULE_UNSET];
    if (status == unset) {
        Py_RETURN_NONE;
    }
    for (int which = N_CONTAINER_STATUSES; which <= N_INIT_CONTAINER_STATUSES; which++) {
        PyObject *statuses = field_of(status, which);
        if (statuses == NULL) {
            return NULL;
        }
        int reports = reports_resources(statuses, unset);
        Py_DECREF(statuses);
        if (reports < 0) {
            return NULL;
        }
        if (reports) {
            return PyObject_CallOneArg(rules[RULE_RESIZED], status);
        }
    }
    Py_RETURN_NONE;
}

/* A tuple of ``items``, which it takes: each slot is left NULL. */
static PyObject *
tuple_taking(PyObject **items, Py_ssize_t count)
{
    PyObject *tuple = PyTuple_New(count);
    if (tuple == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyTuple_SET_ITEM(tuple, i, items[i]);
        items[i] = NULL;
    }
    return tuple;
}

static PyObject *
refused(PyObject *const *rules)
{
    PyErr_SetNone(rules[RULE_REFUSED]);
    return NULL;
}

/* Whether the volume list's text holds one of the mounting texts: each starts with a quote,
 * so only the text's quotes are tried (nine searches of the whole text took 0.4 us). */
static int
mounts(const Py_buffer *volumes, PyObject *texts)
{
    const char *at = volumes->buf, *end = at + volumes->len;
    while ((at = memchr(at, '"', (size_t)(end - at))) != NULL) {
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(texts); i++) {
            PyObject *text = PyTuple_GET_ITEM(texts, i);
            Py_ssize_t length = PyBytes_GET_SIZE(text);
            const char *spelled = PyBytes_AS_STRING(text);
            if (length <= end - at && at[1] == spelled[1] &&
                memcmp(at, spelled, (size_t)length) == 0) {
                return 1;
            }
        }
        at++;
    }
    return 0;
}

/* One pod, as ``_PodTotals.add``; 0, or -1 with an exception set. */
static int
count(PyObject *pod, Totals *t, PyObject *const *rules)
{
    PyObject *unset = rules[RULE_UNSET];
    PyObject *meta = NULL, *name = NULL, *spec = NULL, *status = NULL, *key = NULL;
    PyObject *template = NULL, *parts_key = NULL, *parts = NULL, *volumes = NULL;
    PyObject *node = NULL, *field = NULL, *item = NULL;
    PyObject *key_items[5] = {NULL}, *parts_items[6] = {NULL};
    int result = -1;

    if ((meta = field_of(pod, N_METADATA)) == NULL) {
        goto done;
    }
    if (meta == unset) {
        refused(rules);
        goto done;
    }
    if ((name = field_of(meta, N_NAME)) == NULL) {
        goto done;
    }
    if (!PyUnicode_Check(name) || PyUnicode_GET_LENGTH(name) == 0) {
        refused(rules);
        goto done;
    }
    if ((spec = field_of(pod, N_SPEC)) == NULL) {
        goto done;
    }
    if (spec == unset) {
        Py_SETREF(spec, Py_NewRef(rules[RULE_EMPTY_SPEC]));
    }
    if ((status = field_of(pod, N_STATUS)) == NULL) {
        goto done;
    }

    /* The template: _pod_key. */
    for (int i = 0; i < 2; i++) {
        if ((field = field_of(spec, i ? N_INIT_CONTAINERS : N_CONTAINERS)) == NULL ||
            (key_items[i] = listed_text(field, rules[RULE_ENCODE])) == NULL) {
            goto done;
        }
        Py_CLEAR(field);
    }
    for (int i = 2; i < 4; i++) {
        if ((field = field_of(spec, i == 2 ? N_RESOURCES : N_OVERHEAD)) == NULL ||
            (key_items[i] = text_of(field, unset)) == NULL) {
            goto done;
        }
        Py_CLEAR(field);
    }
    if ((key_items[4] = resized(status, rules)) == NULL) {
        goto done;
    }
    if ((key = tuple_taking(key_items, 5)) == NULL) {
        goto done;
    }
    if ((template = PyDict_GetItemWithError(t->templates, key)) != NULL) {
        Py_INCREF(template);
    } else if (PyErr_Occurred() || (template = PyObject_CallOneArg(t->template, key)) == NULL) {
        goto done;
    }
    Py_ssize_t number = PyLong_AsSsize_t(template);
    if (number == -1 && PyErr_Occurred()) {
        goto done;
    }
    if (number < 0 || number >= PyList_GET_SIZE(t->totals)) {
        PyErr_SetString(PyExc_IndexError, "counted: a template past the totals");
        goto done;
    }
    PyObject *totals = PyList_GET_ITEM(t->totals, number); /* borrowed, held by the list */

    /* The parts: _Shared.number. */
    if ((parts_items[0] = field_of(meta, N_NAMESPACE)) == NULL) {
        goto done;
    }
    for (int i = 1; i < 3; i++) {
        if ((field = field_of(meta, i == 1 ? N_LABELS : N_OWNER_REFERENCES)) == NULL ||
            (parts_items[i] = text_of(field, unset)) == NULL) {
            goto done;
        }
        Py_CLEAR(field);
    }
    if ((field = field_of(spec, N_AFFINITY)) == NULL) {
        goto done;
    }
    if (field == unset || field == Py_None) {
        parts_items[3] = Py_NewRef(Py_None);
    } else if ((parts_items[3] = PyObject_CallOneArg(rules[RULE_AFFINITY], field)) == NULL) {
        goto done;
    }
    Py_CLEAR(field);
    if ((parts_items[4] = field_of(spec, N_PRIORITY)) == NULL) {
        goto done;
    }
    parts_items[5] = Py_NewRef(template);
    if ((parts_key = tuple_taking(parts_items, 6)) == NULL) {
        goto done;
    }
    if ((parts = PyDict_GetItemWithError(t->numbers, parts_key)) != NULL) {
        Py_INCREF(parts);
    } else if (PyErr_Occurred() ||
               (parts = PyObject_CallFunctionObjArgs(t->shared_add, parts_key, totals, NULL)) ==
                   NULL) {
        goto done;
    }

    /* The volumes' first byte: all the schema asks of them. */
    if ((volumes = field_of(spec, N_VOLUMES)) == NULL) {
        goto done;
    }
    Py_buffer text = {0};
    int viewed = 0;
    if (volumes != unset) {
        if (PyObject_GetBuffer(volumes, &text, PyBUF_SIMPLE) < 0) {
            goto done;
        }
        viewed = 1;
        unsigned char first = text.len > 0 ? ((const unsigned char *)text.buf)[0] : 0;
        PyObject *byte = PyLong_FromLong(first);
        int allowed = byte == NULL ? -1 : PySequence_Contains(rules[RULE_ARRAY_OR_NULL], byte);
        Py_XDECREF(byte);
        if (allowed <= 0) {
            if (allowed == 0) {
                refused(rules);
            }
            goto release;
        }
    }

    if ((node = field_of(spec, N_NODE_NAME)) == NULL) {
        goto release;
    }
    if (node == unset || !PyUnicode_Check(node) || PyUnicode_GET_LENGTH(node) == 0) {
        int empty = node == unset || PyObject_Not(node);
        if (empty < 0) {
            goto release;
        }
        if (empty) {
            result = 0; /* not on a node: not counted */
            goto release;
        }
    }
    if (status != unset) {
        if ((field = field_of(status, N_PHASE)) == NULL) {
            goto release;
        }
        int terminal = PySequence_Contains(rules[RULE_TERMINAL], field);
        Py_CLEAR(field);
        if (terminal != 0) {
            result = terminal < 0 ? -1 : 0;
            goto release;
        }
    }
    if (totals == Py_None) { /* an error only if the pod turns out to count */
        result = PySet_Add(t->unreadable, node);
        goto release;
    }
    if (PyUnicode_CheckExact(node)) {
        PyUnicode_InternInPlace(&node);
    } else {
        PyErr_SetString(PyExc_TypeError, "counted: a node name that is no str");
        goto release;
    }
    PyObject *placed = PyDict_GetItemWithError(t->on_node, node); /* borrowed */
    if (placed == NULL) {
        if (PyErr_Occurred() || (item = PyList_New(0)) == NULL ||
            PyDict_SetItem(t->on_node, node, item) < 0) {
            goto release;
        }
        placed = item;
    }
    if (PyList_Append(placed, template) < 0) {
        goto release;
    }
    Py_CLEAR(item);
    if (viewed && mounts(&text, rules[RULE_MOUNTING])) {
        PyObject *position = PyLong_FromSsize_t(PyList_GET_SIZE(t->names));
        PyObject *copy = position == NULL ? NULL : PyBytes_FromStringAndSize(text.buf, text.len);
        int stored = copy == NULL ? -1 : PyDict_SetItem(t->mounting, position, copy);
        Py_XDECREF(position);
        Py_XDECREF(copy);
        if (stored < 0) {
            goto release;
        }
    }
    if (PyList_Append(t->names, name) < 0 || PyList_Append(t->nodes, node) < 0) {
        goto release;
    }
    if ((field = field_of(meta, N_DELETION_TIMESTAMP)) == NULL) {
        goto release;
    }
    int deleting = field != unset && field != Py_None;
    Py_CLEAR(field);
    if (PyList_Append(t->terminating, deleting ? Py_True : Py_False) < 0) {
        goto release;
    }
    if (status == unset) {
        field = Py_NewRef(Py_None);
    } else if ((field = field_of(status, N_START_TIME)) == NULL) {
        goto release;
    }
    if (PyList_Append(t->started, field == unset ? Py_None : field) < 0 ||
        PyList_Append(t->parts, parts) < 0) {
        goto release;
    }
    result = 0;
release:
    if (viewed) {
        PyBuffer_Release(&text);
    }
done:
    for (int i = 0; i < 5; i++) {
        Py_XDECREF(key_items[i]);
    }
    for (int i = 0; i < 6; i++) {
        Py_XDECREF(parts_items[i]);
    }
    Py_XDECREF(meta);
    Py_XDECREF(name);
    Py_XDECREF(spec);
    Py_XDECREF(status);
    Py_XDECREF(key);
    Py_XDECREF(template);
    Py_XDECREF(parts_key);
    Py_XDECREF(parts);
    Py_XDECREF(volumes);
    Py_XDECREF(node);
    Py_XDECREF(field);
    Py_XDECREF(item);
    return result;
}

static PyObject *
counted(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4 || !PyTuple_Check(args[0]) || PyTuple_GET_SIZE(args[0]) != RULES ||
        !PyList_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "counted(rules, totals, items, start, /)");
        return NULL;
    }
    PyObject *const *rules = &PyTuple_GET_ITEM(args[0], 0);
    PyObject *texts = rules[RULE_MOUNTING];
    if (!PyTuple_Check(texts)) {
        PyErr_SetString(PyExc_TypeError, "counted: the mounting texts are a tuple");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(texts); i++) {
        PyObject *text = PyTuple_GET_ITEM(texts, i);
        if (!PyBytes_Check(text) || PyBytes_GET_SIZE(text) < 2 || PyBytes_AS_STRING(text)[0] != '"') {
            PyErr_SetString(PyExc_TypeError, "counted: the mounting texts are quoted bytes");
            return NULL;
        }
    }
    Py_ssize_t start = PyLong_AsSsize_t(args[3]);
    if (start == -1 && PyErr_Occurred()) {
        return NULL;
    }
    Totals t;
    if (taken(args[1], &t) < 0) {
        release(&t);
        return NULL;
    }
    PyObject *items = args[2];
    Py_ssize_t index = start < 0 ? 0 : start;
    for (; index < PyList_GET_SIZE(items); index++) {
        PyObject *pod = PyList_GET_ITEM(items, index);
        Py_INCREF(pod); /* the list may change under a call back into Python */
        PyObject *kind = field_of(pod, N_KIND);
        int is_pod = kind == NULL ? -1 : PyUnicode_Check(kind) &&
                                             PyUnicode_Compare(kind, names_[N_POD]) == 0;
        Py_XDECREF(kind);
        if (is_pod < 0 || PyErr_Occurred()) {
            Py_DECREF(pod);
            release(&t);
            return NULL;
        }
        if (!is_pod) {
            Py_DECREF(pod);
            break;
        }
        int failed = count(pod, &t, rules) < 0;
        Py_DECREF(pod);
        if (failed) {
            release(&t);
            return NULL;
        }
    }
    release(&t);
    return PyLong_FromSsize_t(index);
}

static PyMethodDef methods[] = {
    {"counted", (PyCFunction)(void (*)(void))counted, METH_FASTCALL,
     "counted(rules, totals, items, start, /)\n--\n\n"
     "Count ``items[start:]`` into ``totals`` as ``_PodTotals.add`` does, up to the first "
     "item that is not a Pod; its position (``len(items)`` when every one was)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "gate.snapshot._pods",
    "A kubectl List's pods counted by node (see the source for why).",
    0,
    methods,
};

PyMODINIT_FUNC
PyInit__pods(void)
{
    for (int i = 0; i < NAMES; i++) {
        if (names_[i] == NULL && (names_[i] = PyUnicode_InternFromString(spelled[i])) == NULL) {
            return NULL;
        }
    }
    return PyModule_Create(&module);
}
