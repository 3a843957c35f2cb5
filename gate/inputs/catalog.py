"""An instance-type catalog file -> :class:`~gate.model.karpenter.Catalog`.

The format is that of Karpenter's KWOK provider (``--instance-types-file-path``), read as
kubernetes-sigs/karpenter v1.8.3 ``kwok/cloudprovider/helpers.go`` reads it: a JSON array of
``{"name", "offerings": [{"Price", "Available", "Requirements": [{"key", "operator",
"values"}]}], "architecture", "operatingSystems", "resources"}``, decoded by Go's
``encoding/json`` (keys match their field case-insensitively, unknown keys are ignored, a
repeated key keeps its last value). ``setDefaultOptions`` then defaults ``pods`` to 110 and
marks every offering available, whatever ``Available`` says (here ``"Available": false`` is
honoured: Karpenter's scheduler launches no unavailable offering, and a gate must not answer
``SCALES`` for one), and ``newInstanceType`` derives
the labels ``karpenter.kwok.sh/instance-size|family|cpu|memory`` and gives every type an
overhead of kubeReserved cpu 100m and memory 10Mi.

One fitgate extension: an entry may carry ``"overhead": {"cpu": ..., "memory": ...}`` (any
ResourceList), what the kubelet keeps of that type (kube and system reserved, eviction
threshold), in place of KWOK's; KWOK's decoder ignores the key, so a file stays usable by
KWOK.

Stricter than KWOK, since a gate must not judge with a catalog it misread: every problem is
one line naming the file, the entry and the field (``types.json: [3].resources.cpu: ...``,
exit 2), and so is a name given twice, a type without cpu, memory, architecture, operating
system or offering, and an offering without exactly one zone and one capacity type.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from codecs import BOM_UTF8
from collections.abc import Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

import msgspec

from gate.deadline import open_regular, read_capped
from gate.errors import QuantityError, UsageError
from gate.inputs.azurecatalog import azure_catalog, is_sku_listing
from gate.inputs.ec2catalog import ec2_catalog, is_listing, is_offerings
from gate.k8s.labels import ARCH, INSTANCE_TYPE, ZONE
from gate.k8s.quantity import nonnegative_quantity
from gate.k8s.resources import to_scheduler_units
from gate.model.karpenter import CAPACITY_TYPE_LABEL, Catalog, InstanceType, Offering, Requirement

EXPECTED = (
    "KWOK's JSON array, `aws ec2 describe-instance-types --output json`, `aws ec2 "
    "describe-instance-type-offerings --location-type availability-zone --output json` or "
    "`az vm list-skus --location <region> --output json`"
)
MAX_CATALOG_BYTES = 64 * 2**20
"""A larger file is refused unread: AWS's whole catalog, every region's offerings, is a
few MiB."""
MAX_CATALOG_TYPES = 5_000
"""A catalog of more types is refused in one line: AWS offers under a thousand, and each
type is asked of every pool and every new node (100,000 took 16-44 s and 744 MB to judge
for 3 workloads)."""
DEFAULT_PODS = "110"
"""helpers.go ``setDefaultOptions``: "Default number of pods on a node in Kubernetes"."""
KWOK_OVERHEAD: Mapping[str, str] = {"cpu": "100m", "memory": "10Mi"}
"""helpers.go ``newInstanceType``: the kubeReserved of every KWOK instance type."""
KWOK_GROUP = "karpenter.kwok.sh"
"""kwok/apis/apis.go ``Group``: the domain of KWOK's instance labels."""
INSTANCE_SIZE, INSTANCE_FAMILY = f"{KWOK_GROUP}/instance-size", f"{KWOK_GROUP}/instance-family"
INSTANCE_CPU, INSTANCE_MEMORY = f"{KWOK_GROUP}/instance-cpu", f"{KWOK_GROUP}/instance-memory"
OPERATORS = frozenset({"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"})

_AWS_SIZE = re.compile(r"^\w+\.(nano|micro|small|medium|large|\d*xlarge|metal)$", re.ASCII)
"""helpers.go ``awsRegexp``: AWS names are ``<family>.<size>``."""
_FAMILY_DELIMITER = re.compile(r"[.-]")
"""helpers.go ``familyDelim``."""


class _TooLarge(Exception):
    """More than :data:`MAX_CATALOG_BYTES`."""


class _Number(str):
    """A JSON number as its text: ``Quantity.UnmarshalJSON`` parses a number's own text
    (``1e3`` stays ``1e3``, which a float would print ``1000.0``)."""


class _Object(list[tuple[str, Any]]):
    """A JSON object as its pairs in file order: Go's decoder reads repeated and
    differently cased keys in that order."""


def instance_size(name: str, cpu: str) -> str:
    """helpers.go ``parseSizeFromType``: an AWS name's size, else the cpu count.

    >>> instance_size("m7i.2xlarge", "8"), instance_size("c-4x-amd64-linux", "4")
    ('2xlarge', '4')
    """
    found = _AWS_SIZE.match(name)
    return found.group(1) if found else cpu


def instance_family(name: str) -> str:
    """helpers.go ``parseFamilyFromType``: what precedes the first ``.`` or ``-``, else the
    name's first character.

    >>> instance_family("m7i.2xlarge"), instance_family("n2-standard-8"), instance_family("D4s")
    ('m7i', 'n2', 'D')
    """
    parts = _FAMILY_DELIMITER.split(name, maxsplit=1)
    return name[:1] if len(parts) < 2 else parts[0]


_BINARY_SUFFIXES = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_DECIMAL_SUFFIXES = {
    -9: "n",
    -6: "u",
    -3: "m",
    0: "",
    3: "k",
    6: "M",
    9: "G",
    12: "T",
    15: "P",
    18: "E",
}


def quantity_text(raw: object) -> str:
    """What ``resource.Quantity.String()`` prints of a decoded quantity (k8s.io/apimachinery
    quantity.go ``CanonicalizeBytes``): a binary suffix keeps base 1024 for whole values of
    1024 or more, a decimal one the largest SI suffix of an exponent that is a multiple of
    three, an exponent form its exponent. Raises ``QuantityError`` as
    :func:`~gate.k8s.quantity.parse_quantity` does.

    >>> [quantity_text(q) for q in ("64Gi", "1536Mi", "1.5", "2000m", "512Ki", "1e3", 16)]
    ['64Gi', '1536Mi', '1500m', '2', '512Ki', '1e3', '16']
    """
    value = nonnegative_quantity(raw)
    text = raw.strip() if isinstance(raw, str) else repr(raw)
    if _kept_as_written(text):
        return text
    if value == 0:
        return "0"
    if re.search(r"[KMGTPE]i$", text) and value >= 1024 and value.denominator == 1:
        number, power = int(value), 0
        while number % 1024 == 0 and power < len(_BINARY_SUFFIXES) - 1:
            number, power = number // 1024, power + 1
        return f"{number}{_BINARY_SUFFIXES[power]}"
    exponent_form = bool(re.search(r"[eE][+-]?[0-9]+$", text))
    mantissa, exponent = _decimal(value)
    if exponent_form:
        return f"{mantissa}e{exponent}" if exponent else str(mantissa)
    suffix = _DECIMAL_SUFFIXES.get(exponent)
    return f"{mantissa}{suffix}" if suffix is not None else f"{mantissa}e{exponent}"


_PARTS = re.compile(r"([+-]?)0*([0-9]*)(?:\.([0-9]*))?(.*)", re.S)
_BINARY_POWERS = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_POWERS = {suffix: power for power, suffix in _DECIMAL_SUFFIXES.items()}
_INT64_MAX = 2**63 - 1


def _kept_as_written(text: str) -> bool:
    """Whether ``ParseQuantity`` keeps ``text`` itself as the quantity's string (quantity.go:
    its int64 fast path, "if the number is in canonical form, reuse the string"), so that
    ``String()`` prints it as written (``"4"``, ``"1e3"``, ``"+4"``) rather than rebuilt.

    >>> [_kept_as_written(t) for t in ("0", "4", "+4", "1e3", "1Gi", "64Gi", "1000", "0.5", "1.5")]
    [True, True, True, True, True, False, False, False, False]
    """
    if text == "0":
        return True
    found = _PARTS.fullmatch(text)
    if found is None:
        return False
    _, num, denom, suffix = found.groups()
    num, denom = num or "0", denom or ""
    if suffix in _BINARY_POWERS:
        exponent = _BINARY_POWERS[suffix]
        if denom:
            return False
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1
        scale, mantissa, binary = 0, 2**exponent, True
    else:
        if suffix in _DECIMAL_POWERS:
            exponent = _DECIMAL_POWERS[suffix]
        elif re.fullmatch(r"[eE][+-]?[0-9]+", suffix):
            exponent = int(suffix[1:])
        else:
            return False
        precision = 18 - (len(num) + len(denom))
        scale, mantissa, binary = exponent - len(denom), 1, False
    if precision < 0 or scale < -9:
        return False
    shifted = num + denom
    value = int(shifted)
    if value > _INT64_MAX or value * mantissa > _INT64_MAX:
        return False
    if binary:
        return exponent % 10 == 0 and value & 0x07 != 0
    return scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"


def _decimal(value: Fraction) -> tuple[int, int]:
    """``value`` as mantissa times 10^exponent, the exponent a multiple of three and the
    mantissa without trailing zeros beyond that (``AsCanonicalBytes``)."""
    exponent = 0
    while value.denominator != 1:
        value, exponent = value * 10, exponent - 1
    number = int(value)
    while number % 10 == 0:
        number, exponent = number // 10, exponent + 1
    shift = exponent % 3
    return number * 10**shift, exponent - shift


class _Entry:
    """Go's ``encoding/json`` reading of one object: fields by case-insensitive key, the
    last of a repeated key winning; each failure names the file, entry and field."""

    def __init__(self, source: str, where: str, pairs: object) -> None:
        self.source, self.where = source, where
        if not isinstance(pairs, _Object):
            raise self.fail("", "not an object")
        self.fields: dict[str, Any] = {}
        for key, value in pairs:
            self.fields[key.lower()] = value

    def fail(self, field: str, why: str) -> UsageError:
        path = f"{self.where}.{field}" if field else self.where
        return UsageError(f"{self.source}: {path}: {why}")

    def get(self, field: str) -> Any:
        return self.fields.get(field.lower())

    def text(self, field: str, required: bool = True) -> str:
        value = self.get(field)
        if value is None and not required:
            return ""
        if not isinstance(value, str) or isinstance(value, _Number):
            raise self.fail(field, "missing" if value is None else f"not a string: {_shown(value)}")
        if required and not value:
            raise self.fail(field, "empty")
        return value

    def items(self, field: str) -> list[Any]:
        value = self.get(field)
        if value is None:
            return []
        if not isinstance(value, list) or isinstance(value, _Object):
            raise self.fail(field, "not a list")
        return value

    def strings(self, field: str) -> tuple[str, ...]:
        values = self.items(field)
        for index, value in enumerate(values):
            if not isinstance(value, str) or isinstance(value, _Number):
                raise self.fail(f"{field}[{index}]", f"not a string: {_shown(value)}")
        return tuple(values)

    def resources(self, field: str) -> dict[str, Fraction]:
        """A ResourceList: each quantity a string or a number, as ``Quantity.UnmarshalJSON``
        takes it (null is zero); a negative amount is no capacity."""
        pairs = self.get(field)
        if pairs is None:
            return {}
        if not isinstance(pairs, _Object):
            raise self.fail(field, "not an object")
        amounts: dict[str, Fraction] = {}
        for name, raw in pairs:
            try:
                amounts[name] = nonnegative_quantity(raw if raw is not None else 0)
            except QuantityError as exc:
                raise self.fail(field + _member(name), str(exc)) from None
        return amounts


_PLAIN_KEY = re.compile(r"[A-Za-z0-9_./-]+")


def _member(name: str) -> str:
    """``.cpu``, or a name that is not plain quoted (``["a\\nb"]``): a message stays on one
    line whatever a file's keys hold."""
    return f".{name}" if _PLAIN_KEY.fullmatch(name) else f"[{json.dumps(name)}]"


def _shown(value: object) -> str:
    if isinstance(value, _Object):
        return "an object"
    if isinstance(value, _Number):
        return str(value)[:40]
    text = json.dumps(value) if not isinstance(value, list) else "a list"
    return text if len(text) <= 40 else text[:37] + "..."


def _requirement(source: str, where: str, pairs: object) -> Requirement:
    entry = _Entry(source, where, pairs)
    operator = entry.text("operator")
    if operator not in OPERATORS:
        raise entry.fail("operator", f"{operator!r} is not one of {', '.join(sorted(OPERATORS))}")
    return Requirement(entry.text("key"), operator, entry.strings("values"))


def _only(entry: _Entry, requirements: tuple[Requirement, ...], key: str) -> str:
    found = [r for r in requirements if r.key == key]
    if len(found) != 1 or found[0].operator != "In" or len(found[0].values) != 1:
        raise entry.fail("Requirements", f"an offering names one {key} (In, one value)")
    return found[0].values[0]


def _offering(source: str, where: str, pairs: object) -> Offering:
    entry = _Entry(source, where, pairs)
    requirements = tuple(
        _requirement(source, f"{where}.Requirements[{index}]", item)
        for index, item in enumerate(entry.items("Requirements"))
    )
    price = entry.get("Price")
    if price is None:
        price = 0.0
    try:  # a float64, as Go decodes it: a number past its range is no price
        number = float(price) if isinstance(price, _Number) else math.nan
    except (TypeError, OverflowError):
        number = math.nan
    if not math.isfinite(number):
        raise entry.fail("Price", f"not a number: {_shown(price)}")
    return Offering(
        zone=_only(entry, requirements, ZONE),
        capacity_type=_only(entry, requirements, CAPACITY_TYPE_LABEL),
        price=number,
        # KWOK's setDefaultOptions marks every offering available; a gate honours an
        # offering the file says is not (Karpenter's scheduler never launches one)
        available=entry.get("Available") is not False,
        requirements=requirements,
    )


def _units(entry: _Entry, field: str, amounts: Mapping[str, Fraction]) -> dict[str, int]:
    try:
        return to_scheduler_units(amounts)
    except QuantityError as exc:
        raise entry.fail(field, str(exc)) from None


def _instance_type(source: str, index: int, pairs: object) -> InstanceType:
    where = f"[{index}]"
    entry = _Entry(source, where, pairs)
    name = entry.text("name")
    architecture = entry.text("architecture")
    systems = entry.strings("operatingSystems")
    if not systems:
        raise entry.fail("operatingSystems", "missing: the type would have no kubernetes.io/os")
    resources = entry.resources("resources")
    raw = dict(entry.get("resources") or ())  # a ResourceList's names are case-sensitive
    for needed in ("cpu", "memory"):
        if needed not in resources:
            raise entry.fail(f"resources.{needed}", "missing")
    offerings = tuple(
        _offering(source, f"{where}.offerings[{number}]", item)
        for number, item in enumerate(entry.items("offerings"))
    )
    if not offerings:
        raise entry.fail("offerings", "missing: a type with no offering cannot be launched")
    cpu, memory = (quantity_text(raw.get(k) or 0) for k in ("cpu", "memory"))
    capacity = {"pods": nonnegative_quantity(DEFAULT_PODS), **resources}
    overhead = entry.resources("overhead") if entry.get("overhead") is not None else None
    if overhead is None:
        overhead = {k: nonnegative_quantity(v) for k, v in KWOK_OVERHEAD.items()}
    return InstanceType(
        name=name,
        labels={
            INSTANCE_TYPE: name,
            ARCH: architecture,
            INSTANCE_SIZE: instance_size(name, cpu),
            INSTANCE_FAMILY: instance_family(name),
            INSTANCE_CPU: cpu,
            INSTANCE_MEMORY: memory,
        },
        operating_systems=systems,
        capacity=_units(entry, "resources", capacity),
        overhead=_units(entry, "overhead", overhead),
        offerings=offerings,
    )


def _too_many(data: bytes, source: str) -> None:
    """Refuses a catalog of more than :data:`MAX_CATALOG_TYPES` types before its types are
    decoded (each as its pairs and texts: 100,000 took 300 MB more just to count). A
    document this cannot count is left to the reading below, whose messages are the ones."""
    try:
        count = len(msgspec.json.decode(data.removeprefix(BOM_UTF8), type=list[msgspec.Raw]))
    except (msgspec.DecodeError, RecursionError):
        return
    if count > MAX_CATALOG_TYPES:
        raise UsageError(
            f"{source}: {count:,} instance types, more than the "
            f"{MAX_CATALOG_TYPES:,} a catalog may hold"
        )


def parse_catalog(data: bytes, source: str) -> Catalog:
    """The catalog in ``data``, the bytes of the file ``source`` names (as given)."""
    _too_many(data, source)
    try:
        document = json.loads(
            data.decode("utf-8-sig"),
            object_pairs_hook=_Object,
            parse_int=_Number,
            parse_float=_Number,
        )
    except UnicodeDecodeError as exc:
        raise UsageError(f"{source}: not UTF-8: {exc.reason} at byte {exc.start}") from None
    except (ValueError, RecursionError) as exc:
        raise UsageError(f"{source}: not JSON: {exc}") from None
    if not isinstance(document, list) or isinstance(document, _Object):
        raise UsageError(f"{source}: not a JSON array of instance types ({EXPECTED})")
    types = [_instance_type(source, index, item) for index, item in enumerate(document)]
    seen: dict[str, int] = {}
    for index, kind in enumerate(types):
        if kind.name in seen:
            raise UsageError(
                f"{source}: [{index}].name: {kind.name!r} is given twice (also [{seen[kind.name]}])"
            )
        seen[kind.name] = index
    if not types:
        raise UsageError(f"{source}: no instance type")
    return Catalog(types=tuple(types), source=source)


def _read(path: str, opened: str | None) -> bytes:
    try:
        with open_regular(opened or path) as handle:
            return read_capped(handle.read, MAX_CATALOG_BYTES, _TooLarge)
    except OSError as exc:
        raise UsageError(f"{path}: cannot read the instance types: {exc.strerror}") from None
    except _TooLarge:
        limit = MAX_CATALOG_BYTES // 2**20
        raise UsageError(f"{path}: longer than {limit} MiB: not read") from None


def read_catalog(path: str, opened: str | None = None) -> Catalog:
    """The catalog file ``path`` names, as given (the catalog's ``source`` and every
    message say it so); ``opened`` is where to read it, when that differs (a path relative
    to the configuration's folder)."""
    return read_catalogs([(path, opened)])


def read_catalogs(paths: Sequence[tuple[str, str | None]]) -> Catalog:
    """The catalog the files ``paths`` name (each as given, and where to open it), each
    recognised by its shape: one KWOK JSON array, EC2's ``describe-instance-types``
    listings with, optionally, their ``describe-instance-type-offerings``
    (:mod:`gate.inputs.ec2catalog`), or one ``az vm list-skus`` listing
    (:mod:`gate.inputs.azurecatalog`)."""
    kwok: list[tuple[str, bytes]] = []
    skus: list[tuple[str, list[Any]]] = []
    listings: list[tuple[str, Mapping[str, Any]]] = []
    offerings: list[tuple[str, Mapping[str, Any]]] = []
    digest = hashlib.sha256()  # which catalog decided, as a report names it
    for path, opened in paths:
        data = _read(path, opened)
        digest.update(data)
        try:
            document = json.loads(data.decode("utf-8-sig"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            document = None  # parse_catalog says what is wrong, exactly
        if is_listing(document):
            listings.append((path, document))
        elif is_offerings(document):
            offerings.append((path, document))
        elif is_sku_listing(document):
            skus.append((path, document))
        elif isinstance(document, dict):
            raise UsageError(f"{path}: not an instance-type catalog: expected {EXPECTED}")
        else:
            kwok.append((path, data))
    if kwok and (listings or offerings or len(kwok) > 1):
        names = ", ".join(p for p, _ in paths)
        raise UsageError(
            f"{names}: a KWOK catalog is given alone; EC2 listings may be given with "
            "their offerings"
        )
    if skus and (kwok or listings or offerings or len(skus) > 1):
        names = ", ".join(p for p, _ in paths)
        raise UsageError(f"{names}: an az vm list-skus listing is given alone (one region)")
    if skus:
        path, document = skus[0]
        machines = sum(str(e.get("resourceType")).lower() == "virtualmachines" for e in document)
        if machines > MAX_CATALOG_TYPES:
            raise UsageError(
                f"{path}: {machines:,} virtual-machine SKUs, more than the "
                f"{MAX_CATALOG_TYPES:,} instance types a catalog may hold"
            )
        return replace(azure_catalog(path, document), sha256=digest.hexdigest())
    if kwok:
        return replace(parse_catalog(kwok[0][1], kwok[0][0]), sha256=digest.hexdigest())
    if not listings:
        raise UsageError(
            f"{offerings[0][0]}: offerings alone name no instance type: give the "
            "describe-instance-types listing too"
        )
    return replace(ec2_catalog(listings, offerings), sha256=digest.hexdigest())
