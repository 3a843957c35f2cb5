"""The API server's semantic validation of the pod-template fields fitgate reads, as v1.34
refuses them.

:mod:`gate.inputs.shape` checks the JSON types the decoder refuses; this module checks what
the decoded object must satisfy before it is stored: ``ValidatePodTemplateSpec`` and what
``ValidatePodSpec`` calls (kubernetes ``pkg/apis/core/validation/validation.go``), the label
selector and name rules of k8s.io/apimachinery (``pkg/apis/meta/v1/validation``,
``pkg/util/validation``), and the controllers' own rules on their template
(``pkg/apis/apps/validation``, ``pkg/apis/batch/validation``,
``ValidateReplicationControllerSpec``) and on their own spec beside it (strategies, counts,
a Job's failure and success policies, a CronJob's schedule as :mod:`gate.k8s.cronschedule`
reads it), after ``ValidateObjectMeta`` (the kind's name rule, the namespace, the labels,
the annotations).
A template the API server refuses never becomes a pod, so such a workload is an ERROR
carrying every field error the API server would list, in its order, each printed as
``field.Error.Error()`` prints it and several aggregated as ``ErrorList.ToAggregate`` does
(``[first, second]``), with the field path fitgate names the template by.

Each rule is stated once, beside the upstream function it follows. Defaults the API server
applies before validating (``SetDefaults_PodSpec``: ``restartPolicy: Always``;
``SetDefaults_ContainerPort``: ``protocol: TCP``) are applied where a rule reads them.
Values of a type the decoder would refuse are left to :mod:`gate.inputs.shape`; a rule that
meets one here passes over it rather than guess.

>>> spec = {"containers": [{"name": "a", "image": "x"}], "tolerations": [{"operator": "Equal"}]}
>>> print(pod_template_problem(spec, "spec.template.spec"))
spec.template.spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists \
when `key` is empty, which means "match all values and all keys"
"""

from __future__ import annotations

import itertools
import json
import math
import posixpath
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from gate.errors import QuantityError
from gate.k8s.cronschedule import ZonesUnreadable, schedule_error, time_zone_error
from gate.k8s.matching import NO_EXECUTE, NO_SCHEDULE, PREFER_NO_SCHEDULE
from gate.k8s.names import (
    DNS1123_LABEL,
    DNS1123_LABEL_FMT,
    DNS1123_SUBDOMAIN,
    DNS1123_SUBDOMAIN_FMT,
    LABEL_VALUE,
    LABEL_VALUE_FMT,
    QUALIFIED_NAME,
    QUALIFIED_NAME_FMT,
    label_key_ok,
    label_value_ok,
)
from gate.k8s.podlabels import CONTROLLER_UID, JOB_NAME, stand_in_uid
from gate.k8s.podnames import controller_object, generate_name
from gate.k8s.ports import parsed_ip_sloppy
from gate.k8s.quantity import (
    NEGATIVE,
    go_quantity_text,
    milli_value,
    parse_quantity,
    quantity_format,
)
from gate.k8s.quotausage import aggregate_limits, aggregate_requests, containers_of, resources_of
from gate.k8s.resources import (
    HUGEPAGES,
    is_extended,
    is_native,
    overcommit_allowed,
    pod_level_resource,
)
from gate.k8s.selectors import (
    DOES_NOT_EXIST,
    EXISTS,
    IN,
    NOT_IN,
    LabelSelector,
    SelectorError,
    parse_selector,
    text_labels,
)
from gate.untyped import as_list, at, is_mapping, mapping

INVALID, REQUIRED, FORBIDDEN = "Invalid value", "Required value", "Forbidden"
_MAX_INT32 = 2**31 - 1
UNSUPPORTED, DUPLICATE = "Unsupported value", "Duplicate value"
TOO_LONG, TOO_MANY = "Too long", "Too many"


@dataclass(frozen=True, slots=True)
class FieldError:
    """One ``field.Error``: ``value`` is the bad value as ``ErrorBody`` prints it (None for
    the types that print none: Required, Forbidden)."""

    field: str
    type: str
    value: str | None = None
    detail: str = ""

    def __str__(self) -> str:
        # field.Error.Error() and ErrorBody()
        body = self.type if self.value is None else f"{self.type}: {self.value}"
        return f"{self.field}: {body}: {self.detail}" if self.detail else f"{self.field}: {body}"


Errors = Iterator[FieldError]


# --- How ErrorBody prints a bad value (k8s.io/apimachinery/pkg/util/validation/field) -----


def go_quote(text: str) -> str:
    """strconv.Quote, which ``%q`` and ``%#v`` print a string with."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif char in _GO_ESCAPES:
            out.append(_GO_ESCAPES[char])
        elif char.isprintable():
            out.append(char)
        elif code < 0x80:
            out.append(f"\\x{code:02x}")
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


_GO_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_GO_ESCAPES["\v"] = "\\v"


def json_labels(labels: Mapping[str, str] | None) -> str:
    """json.Marshal of a ``map[string]string``, which ErrorBody prints a map with: keys
    sorted, no spaces, ``null`` for a nil map."""
    if labels is None:
        return "null"
    pairs = ",".join(f"{json_quote(k)}:{json_quote(v)}" for k, v in sorted(labels.items()))
    return f"{{{pairs}}}"


def json_selector(raw: Mapping[str, Any]) -> str:
    """json.Marshal of a ``*metav1.LabelSelector``: its fields in their order, each left
    out when empty (``omitempty``), as a requirement's values are."""
    fields = []
    match_labels = text_labels(raw.get("matchLabels"))
    if match_labels:
        fields.append(f'"matchLabels":{json_labels(match_labels)}')
    expressions = [e for e in as_list(raw.get("matchExpressions")) if is_mapping(e)]
    if expressions:
        fields.append('"matchExpressions":[' + ",".join(map(_json_requirement, expressions)) + "]")
    return "{" + ",".join(fields) + "}"


def _json_requirement(expression: Mapping[str, Any]) -> str:
    key, operator = _str(expression.get("key")), _str(expression.get("operator"))
    shown = f'{{"key":{json_quote(key)},"operator":{json_quote(operator)}'
    values = [_str(v) for v in as_list(expression.get("values"))]
    if values:
        shown += ',"values":[' + ",".join(map(json_quote, values)) + "]"
    return shown + "}"


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def _text(value: object) -> str | None:
    """A string field as Go holds it: null is empty; another type is the decoder's to refuse."""
    if value is None:
        return ""
    return value if isinstance(value, str) else None


def _int(value: object) -> int | None:
    if value is None:
        return 0
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def invalid(field: str, value: str, detail: str) -> FieldError:
    """field.Invalid with a string value (``%q``)."""
    return FieldError(field, INVALID, go_quote(value), detail)


def not_supported(field: str, value: str, supported: tuple[str, ...]) -> FieldError:
    """field.NotSupported: the supported values quoted, in the order upstream lists them."""
    return not_supported_value(field, go_quote(value), supported)


def not_supported_value(field: str, shown: str, supported: tuple[str, ...]) -> FieldError:
    """field.NotSupported of a value already printed as ErrorBody prints it."""
    detail = "supported values: " + ", ".join(go_quote(s) for s in supported)
    return FieldError(field, UNSUPPORTED, shown, detail)


# --- Names (k8s.io/apimachinery/pkg/util/validation/validation.go) ------------------------

_QUALIFIED_NAME_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character"
)
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character"
)
_DNS1123_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character"
)
_DNS1123_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character"
)
_PORT_NAME_CHARSET = re.compile("[-a-z0-9]+")
_PORT_NAME_LETTER = re.compile("[a-z]")


def regex_error(message: str, fmt: str, *examples: str) -> str:
    """RegexError, spaces and all: ``(e.g. 'a',  or 'b', regex used ...)``."""
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{message} (e.g. {shown}regex used for validation is '{fmt}')"


def max_len_error(length: int) -> str:
    return f"must be no more than {length} characters"


EMPTY_ERROR = "must be non-empty"
BAD_OPERATOR = "not a valid selector operator"
_POSITIVE = "must be greater than zero"


def qualified_name_errors(value: str) -> list[str]:
    """IsQualifiedName: an optional DNS-subdomain prefix and ``/``, then a name of at most
    63 characters."""
    if label_key_ok(value):
        return []
    parts = value.split("/")
    errors: list[str] = []
    if len(parts) > 2:
        example = regex_error(
            _QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc"
        )
        suffix = " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        return [f"a qualified name {example}{suffix}"]
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            errors.append(f"prefix part {EMPTY_ERROR}")
        else:
            errors.extend(f"prefix part {m}" for m in dns1123_subdomain_errors(prefix))
    if not name:
        errors.append(f"name part {EMPTY_ERROR}")
    elif len(name) > 63:
        errors.append(f"name part {max_len_error(63)}")
    if not QUALIFIED_NAME.fullmatch(name):
        example = regex_error(
            _QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc"
        )
        errors.append(f"name part {example}")
    return errors


def label_value_errors(value: str) -> list[str]:
    """IsValidLabelValue."""
    if label_value_ok(value):
        return []
    errors = [max_len_error(63)] if len(value) > 63 else []
    if not LABEL_VALUE.fullmatch(value):
        errors.append(
            regex_error(_LABEL_VALUE_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345")
        )
    return errors


def dns1123_label_errors(value: str) -> list[str]:
    """IsDNS1123Label."""
    errors = [max_len_error(63)] if len(value) > 63 else []
    if not DNS1123_LABEL.fullmatch(value):
        if DNS1123_SUBDOMAIN.fullmatch(value):
            errors.append("must not contain dots")
        else:
            errors.append(regex_error(_DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errors


def dns1123_subdomain_errors(value: str) -> list[str]:
    """IsDNS1123Subdomain (NameIsDNSSubdomain, ValidateNodeName and the class names)."""
    errors = [max_len_error(253)] if len(value) > 253 else []
    if not DNS1123_SUBDOMAIN.fullmatch(value):
        errors.append(regex_error(_DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errors


_DNS1123_UNDERSCORE_LABEL_FMT = "_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_DNS1123_UNDERSCORE_FMT = f"{_DNS1123_UNDERSCORE_LABEL_FMT}(\\.{_DNS1123_UNDERSCORE_LABEL_FMT})*"
_DNS1123_UNDERSCORE = re.compile(_DNS1123_UNDERSCORE_FMT)
_DNS1123_UNDERSCORE_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', "
    "'-' or '.', and must start and end with an alphanumeric character"
)


def dns1123_underscore_subdomain_errors(value: str) -> list[str]:
    """IsDNS1123SubdomainWithUnderscore: a DNS subdomain whose labels may hold ``_`` and
    start with one."""
    errors = [max_len_error(253)] if len(value) > 253 else []
    if not _DNS1123_UNDERSCORE.fullmatch(value):
        errors.append(regex_error(_DNS1123_UNDERSCORE_MSG, _DNS1123_UNDERSCORE_FMT, "example.com"))
    return errors


IP_ERROR = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"


def legacy_ip(value: str, field: str) -> Errors:
    """IsValidIPForLegacyField with StrictIPCIDRValidation off (alpha in v1.34): an address
    ParseIPSloppy reads, leading zeros and IPv4-mapped IPv6 addresses allowed."""
    if parsed_ip_sloppy(value) is None:
        yield invalid(field, value, IP_ERROR)


def port_name_errors(value: str) -> list[str]:
    """IsValidPortName (an IANA_SVC_NAME)."""
    errors = [max_len_error(15)] if len(value) > 15 else []
    if not _PORT_NAME_CHARSET.fullmatch(value):
        errors.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not _PORT_NAME_LETTER.search(value):
        errors.append("must contain at least one letter (a-z)")
    if "--" in value:
        errors.append("must not contain consecutive hyphens")
    if value and (value[0] == "-" or value[-1] == "-"):
        errors.append("must not begin or end with a hyphen")
    return errors


def port_number_error(port: int) -> str | None:
    """IsValidPortNum."""
    return None if 1 <= port <= 65535 else "must be between 1 and 65535, inclusive"


def _each(field: str, value: str, messages: list[str]) -> Errors:
    for message in messages:
        yield invalid(field, value, message)


def label_name(value: str, field: str) -> Errors:
    """ValidateLabelName (meta/v1/validation): IsQualifiedName."""
    yield from _each(field, value, qualified_name_errors(value))


def labels(raw: object, field: str) -> Errors:
    """ValidateLabels: each key a qualified name, each value a label value, both reported
    at the map's own path."""
    for key, value in mapping(raw).items():
        text = str(key)
        if not label_key_ok(text):  # the valid ones, nearly all, cost one match
            yield from _each(field, text, qualified_name_errors(text))
        written = _text(value)
        if written is not None and not label_value_ok(written):
            yield from _each(field, written, label_value_errors(written))


# --- Label selectors (k8s.io/apimachinery/pkg/apis/meta/v1/validation) --------------------

SELECTOR_OPERATORS = (IN, NOT_IN, EXISTS, DOES_NOT_EXIST)
"""The operators a label selector and a node selector both take, with the same rule for
their values."""


def label_selector(raw: object, field: str) -> Errors:
    """ValidateLabelSelector, label values checked (AllowInvalidLabelValueInSelector is
    false for a new object)."""
    if not is_mapping(raw):
        return
    yield from labels(raw.get("matchLabels"), f"{field}.matchLabels")
    for i, expression in enumerate(as_list(raw.get("matchExpressions"))):
        yield from selector_requirement(mapping(expression), f"{field}.matchExpressions[{i}]")


def selector_requirement(expression: Mapping[str, Any], field: str) -> Errors:
    """ValidateLabelSelectorRequirement: the operator and its values, the key, each value."""
    operator, values = _operator_and_values(expression)
    if operator in SELECTOR_OPERATORS:
        yield from _set_values(operator, values, field)
    elif operator is not None:
        yield invalid(f"{field}.operator", operator, BAD_OPERATOR)
    key = _text(expression.get("key"))
    if key is not None:
        yield from label_name(key, f"{field}.key")
    for i, value in enumerate(values):
        yield from _each(f"{field}.values[{i}]", value, label_value_errors(value))


def _operator_and_values(expression: Mapping[str, Any]) -> tuple[str | None, list[str]]:
    """A requirement's operator and its values that are texts."""
    values = [v for v in (_text(v) for v in as_list(expression.get("values"))) if v is not None]
    return _text(expression.get("operator")), values


def _set_values(operator: str, values: Sequence[str], field: str) -> Errors:
    """The values of a set operator (:data:`SELECTOR_OPERATORS`): In and NotIn want some,
    Exists and DoesNotExist none."""
    if operator in ("In", "NotIn"):
        if not values:
            detail = "must be specified when `operator` is 'In' or 'NotIn'"
            yield FieldError(f"{field}.values", REQUIRED, None, detail)
    elif values:
        detail = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
        yield FieldError(f"{field}.values", FORBIDDEN, None, detail)


# --- Containers (validateContainers, validateInitContainers, validateContainerCommon) -----

PROTOCOLS = ("SCTP", "TCP", "UDP")  # sets.List(supportedPortProtocols): sorted


NOT_FOUND = "Not found"


def volume_names(
    spec: Mapping[str, Any], prefix: str, names: set[str], pod: str = "", *, is_pod: bool = False
) -> Errors:
    """ValidateVolumes: each volume's source (:func:`volume_source`), then its name
    (required, a DNS label, once); ``names`` gathers the volumes without an error, the
    ones a mount may name. ``pod``: the pod's name, known for a pod (not for a template),
    whose ephemeral volumes' claims are then named and may not be mounted as claims;
    ``is_pod``: a pod's volumes, not a template's (PodValidationOptions.ResourceIsPod)."""
    volumes = [mapping(v) for v in as_list(spec.get("volumes"))]
    created = {f"{pod}-{_str(v.get('name'))}" for v in volumes if v.get(EPHEMERAL) is not None}
    for i, volume in enumerate(volumes):
        name = _text(volume.get("name"))
        if name is None:
            continue  # of a wrong type: the decoder's to refuse
        where = f"{prefix}.volumes[{i}]"
        found = list(volume_source(volume, where, name, pod, is_pod=is_pod))
        if not name:
            found.append(FieldError(f"{where}.name", REQUIRED))
        found += _each(f"{where}.name", name, dns1123_label_errors(name)) if name else []
        if name in names:
            found.append(FieldError(f"{where}.name", DUPLICATE, go_quote(name)))
        yield from found
        if not found:
            names.add(name)
        claim = _text(mapping(volume.get("persistentVolumeClaim")).get("claimName"))
        if pod and claim is not None and claim in created:
            detail = "must not reference a PVC that gets created for an ephemeral volume"
            yield invalid(f"{prefix}.volumes[{i}].persistentVolumeClaim.claimName", claim, detail)


# --- Generic ephemeral volumes (validateEphemeralVolumeSource) --------------------------------

EPHEMERAL = "ephemeral"
ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")
"""supportedAccessModes, as sets.List lists them: sorted."""
READ_WRITE_ONCE_POD = "ReadWriteOncePod"
VOLUME_MODES = ("Block", "Filesystem")  # supportedVolumeModes, sorted
_TEMPLATE_META = (
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "ownerReferences",
    "finalizers",
    "managedFields",
)
"""ObjectMeta's fields besides labels and annotations, in its struct's order: a claim
template may set none of them (validateFieldAllowList)."""
_TEMPLATE_META_POINTERS = frozenset({"deletionTimestamp", "deletionGracePeriodSeconds"})
_GO_FIELD = {"uid": "uID"}  # validateFieldAllowList lowers the Go name's first letter only


def ephemeral_volume_source(source: Mapping[str, Any], where: str) -> Errors:
    """validateEphemeralVolumeSource: a claim template required, and valid
    (:func:`claim_template`)."""
    template = source.get("volumeClaimTemplate")
    if template is None:
        yield FieldError(f"{where}.volumeClaimTemplate", REQUIRED)
    elif is_mapping(template):
        yield from claim_template(template, f"{where}.volumeClaimTemplate")


def ephemeral_claim_name(where: str, name: str, pod: str) -> Errors:
    """For a pod named ``pod`` (a template has no name), the claim made for its ephemeral
    volume ``name`` at ``where``, ``<pod>-<volume>``, must be a claim's name
    (ValidatePersistentVolumeName)."""
    if pod and name:
        claim = f"{pod}-{name}"
        for message in dns1123_subdomain_errors(claim):
            yield invalid(f"{where}.name", name, f"PVC name {go_quote(claim)}: {message}")


def claim_template(template: Mapping[str, Any], field: str) -> Errors:
    """ValidatePersistentVolumeClaimTemplate: ValidateTemplateObjectMeta (annotations,
    labels, no other metadata), then ValidatePersistentVolumeClaimSpec."""
    metadata = mapping(template.get("metadata"))
    yield from annotation_map(metadata.get("annotations"), f"{field}.metadata.annotations")
    yield from labels(metadata.get("labels"), f"{field}.metadata.labels")
    for key in _TEMPLATE_META:
        value = metadata.get(key)
        # unset is Go's zero value: a pointer's nil, a string's "", a number's 0
        if value is not None and (key in _TEMPLATE_META_POINTERS or value not in ("", 0)):
            where = f"{field}.metadata.{_GO_FIELD.get(key, key)}"
            yield FieldError(where, FORBIDDEN, None, "cannot be set")
    yield from claim_spec(mapping(template.get("spec")), f"{field}.spec")


def claim_spec(spec: Mapping[str, Any], field: str) -> Errors:
    """ValidatePersistentVolumeClaimSpec for a new claim (label values checked in the
    selector, a data source's API group a DNS subdomain, the attributes class read): access
    modes required, supported, ReadWriteOncePod alone; ``resources.requests.storage``
    required and positive (rounded up to thousandths first, SetDefaults_ResourceList); the
    class names DNS subdomains; the volume mode supported; each data source's own rules."""
    modes = [m for m in (_text(m) for m in as_list(spec.get("accessModes"))) if m is not None]
    if not as_list(spec.get("accessModes")):
        detail = "at least 1 access mode is required"
        yield FieldError(f"{field}.accessModes", REQUIRED, None, detail)
    if is_mapping(spec.get("selector")):
        yield from label_selector(spec["selector"], f"{field}.selector")
    yield from access_modes(modes, f"{field}.accessModes")
    requests = mapping(mapping(spec.get("resources")).get("requests"))
    where = f"{field}.resources[storage]"
    if "storage" not in requests:
        yield FieldError(where, REQUIRED)
    else:
        raw = requests["storage"]
        value = Fraction(0) if raw is None else _stored(raw)
        if value is not None and value <= 0:
            shown = "0" if raw is None else _shown(value, raw)
            yield invalid(where, shown, _POSITIVE)
        elif value is not None:
            yield from _quantity_value("storage", value, raw, where)
    storage_class = _text(spec.get("storageClassName"))
    if storage_class:  # ValidateClassName
        where = f"{field}.storageClassName"
        yield from _each(where, storage_class, dns1123_subdomain_errors(storage_class))
    volume_mode = spec.get("volumeMode")  # a pointer: null is unset (then Filesystem)
    if isinstance(volume_mode, str) and volume_mode not in VOLUME_MODES:
        yield not_supported(f"{field}.volumeMode", volume_mode, VOLUME_MODES)
    if is_mapping(spec.get("dataSource")):
        yield from _data_source(spec["dataSource"], f"{field}.dataSource")
    if is_mapping(spec.get("dataSourceRef")):
        yield from _data_source(spec["dataSourceRef"], f"{field}.dataSourceRef")
    yield from _data_sources_agree(spec, field)
    attributes = _text(spec.get("volumeAttributesClassName"))
    if attributes:
        where = f"{field}.volumeAttributesClassName"
        yield from _each(where, attributes, dns1123_subdomain_errors(attributes))


def access_modes(modes: Sequence[str], field: str) -> Errors:
    """A claim's or a volume's access modes: each supported, ReadWriteOncePod alone."""
    for mode in modes:
        if mode not in ACCESS_MODES:
            yield not_supported(field, mode, ACCESS_MODES)
    if READ_WRITE_ONCE_POD in modes and any(
        m in ACCESS_MODES for m in modes if m != READ_WRITE_ONCE_POD
    ):
        detail = "may not use ReadWriteOncePod with other access modes"
        yield FieldError(field, FORBIDDEN, None, detail)


def _data_sources_agree(spec: Mapping[str, Any], field: str) -> Errors:
    """A data source beside a reference to another namespace is refused, and beside one to
    the claim's own namespace must name the same object (isDataSourceEqualDataSourceRef:
    the same API group, unset in both or equal, kind and name). The bad value upstream
    gives is the field's path, a struct of unexported fields: marshalled, ``{}``."""
    source, ref = spec.get("dataSource"), spec.get("dataSourceRef")
    if not is_mapping(source) or not is_mapping(ref):
        return
    if _text(ref.get("namespace")):
        detail = "may not be specified when dataSourceRef.namespace is specified"
        yield FieldError(field, INVALID, "{}", detail)
    elif any(_data_key(source, k) != _data_key(ref, k) for k in ("apiGroup", "kind", "name")):
        yield FieldError(field, INVALID, "{}", "must match dataSourceRef")


def _data_key(source: Mapping[str, Any], key: str) -> str | None:
    """A data source's field as Go compares it: the API group a pointer (null unset), the
    kind and name strings (null empty)."""
    value = source.get(key)
    return value if key == "apiGroup" and value is None else _text(value)


def _data_source(source: Mapping[str, Any], field: str) -> Errors:
    """validateDataSource and validateDataSourceRef (whose namespace, when set, is a
    namespace's name)."""
    name, kind = _text(source.get("name")) or "", _text(source.get("kind")) or ""
    if not name:
        yield FieldError(f"{field}.name", REQUIRED)
    if not kind:
        yield FieldError(f"{field}.kind", REQUIRED)
    group = _text(source.get("apiGroup")) or ""
    if not group and kind != "PersistentVolumeClaim":
        detail = "must be 'PersistentVolumeClaim' when referencing the default apiGroup"
        yield invalid(field, kind, detail)
    if group:
        yield from _each(f"{field}.apiGroup", group, dns1123_subdomain_errors(group))
    namespace = _text(source.get("namespace"))
    if namespace:
        yield from _each(f"{field}.namespace", namespace, dns1123_label_errors(namespace))


# --- PersistentVolumes (ValidatePersistentVolume) ---------------------------------------------

_FLEX = "flexVolume"
"""The one source ValidatePersistentVolumeSpec counts and checks without forbidding it
after another (a later source is still forbidden after it)."""
RECLAIM_POLICIES = ("Delete", "Recycle", "Retain")  # supportedReclaimPolicy, sorted


def persistent_volume_claim_problems(claim: Mapping[str, Any]) -> list[str]:
    """The errors ValidatePersistentVolumeClaim gives a new claim as admission leaves it (its
    class defaulted): its metadata, then ValidatePersistentVolumeClaimSpec. A claim the API
    server refuses is never created."""
    found = list(object_meta(claim, "PersistentVolumeClaim"))
    found += claim_spec(mapping(claim.get("spec")), "spec")
    return [str(e) for e in found]


def persistent_volume_problems(body: Mapping[str, Any]) -> list[str]:
    """The errors ValidatePersistentVolume gives a new volume (its namespace cleared first,
    as for any object of no namespace): its name a DNS subdomain, then
    ValidatePersistentVolumeSpec. A volume the API server refuses is never created."""
    metadata = cluster_metadata(body)
    found = list(object_meta({"metadata": metadata}, "PersistentVolume"))
    found += volume_spec(mapping(body.get("spec")), "spec", _str(metadata.get("name")))
    return [str(e) for e in found]


def cluster_metadata(body: Mapping[str, Any]) -> dict[str, Any]:
    """The metadata of an object of no namespace as rest.BeforeCreate leaves it before
    validation: its namespace, if written, cleared."""
    return {k: v for k, v in mapping(body.get("metadata")).items() if k != "namespace"}


def volume_spec(spec: Mapping[str, Any], field: str, name: str = "") -> Errors:
    """ValidatePersistentVolumeSpec for a volume (not an inline one) named ``name``, in its
    order, after SetDefaults_PersistentVolume (reclaim policy Retain, volume mode
    Filesystem)."""
    modes = [m for m in (_text(m) for m in as_list(spec.get("accessModes"))) if m is not None]
    if not as_list(spec.get("accessModes")):
        yield FieldError(f"{field}.accessModes", REQUIRED)
    yield from access_modes(modes, f"{field}.accessModes")
    capacity = mapping(spec.get("capacity"))
    if not capacity:
        yield FieldError(f"{field}.capacity", REQUIRED)
    if "storage" not in capacity or len(capacity) > 1:
        shown = json.dumps({str(k): str(v) for k, v in capacity.items()}, separators=(",", ":"))
        yield not_supported_value(f"{field}.capacity", shown, ("storage",))
    for name, raw in capacity.items():
        value = _stored(raw)
        if value is not None and value <= 0:  # validateBasicResource, then positive
            where = f"{field}.capacity[{name}]"
            if value < 0:
                yield invalid(where, _shown(value, raw), "must be a valid resource quantity")
            yield invalid(where, _shown(value, raw), _POSITIVE)
    policy = _text(spec.get("persistentVolumeReclaimPolicy")) or "Retain"
    if policy not in RECLAIM_POLICIES:
        where = f"{field}.persistentVolumeReclaimPolicy"
        yield not_supported(where, policy, RECLAIM_POLICIES)
    affinity = spec.get("nodeAffinity")
    if is_mapping(affinity):  # validateVolumeNodeAffinity
        required = affinity.get("required")
        where = f"{field}.nodeAffinity.required"
        if not is_mapping(required):
            detail = "must specify required node constraints"
            yield FieldError(where, REQUIRED, None, detail)
        elif not as_list(required.get("nodeSelectorTerms")):
            detail = "must have at least one node selector term"
            yield FieldError(f"{where}.nodeSelectorTerms", REQUIRED, None, detail)
        else:
            for i, term in enumerate(as_list(required.get("nodeSelectorTerms"))):
                term_field = f"{where}.nodeSelectorTerms[{i}]"
                yield from node_selector_term(mapping(term), term_field, True)
    yield from _volume_source(spec, field, is_mapping(affinity), name)
    storage_class = _text(spec.get("storageClassName"))
    if storage_class:  # ValidateClassName
        where = f"{field}.storageClassName"
        yield from _each(where, storage_class, dns1123_subdomain_errors(storage_class))
    volume_mode = spec.get("volumeMode")
    if isinstance(volume_mode, str) and volume_mode not in VOLUME_MODES:
        yield not_supported(f"{field}.volumeMode", volume_mode, VOLUME_MODES)
    attributes = spec.get("volumeAttributesClassName")
    if isinstance(attributes, str):
        where = f"{field}.volumeAttributesClassName"
        if not attributes:
            yield FieldError(where, REQUIRED, None, "an empty string is disallowed")
        else:
            yield from _each(where, attributes, dns1123_subdomain_errors(attributes))
        if not is_mapping(spec.get("csi")):
            detail = "has to be specified when using volumeAttributesClassName"
            yield FieldError(f"{field}.csi", REQUIRED, None, detail)


def _volume_source(spec: Mapping[str, Any], field: str, placed: bool, name: str) -> Errors:
    """The volume's one source (none is refused, a second is forbidden, :data:`_FLEX`
    aside), a local volume's node affinity required (``placed``), and no Recycle policy
    for a host path of ``/``."""
    count = 0
    for key, reported, rule in _PV_SOURCES:
        source = spec.get(key)
        if not is_mapping(source):
            continue
        if count and key != _FLEX:
            yield FieldError(f"{field}.{reported}", FORBIDDEN, None, _MORE_THAN_ONE)
            continue
        count += 1
        if rule is None:
            yield from _iscsi_pv(source, f"{field}.iscsi", name)
        else:
            yield from rule(source, f"{field}.{key}")
        if key == "local" and not placed:
            detail = "Local volume requires node affinity"
            yield FieldError(f"{field}.nodeAffinity", REQUIRED, None, detail)
    if not count:
        yield FieldError(field, REQUIRED, None, "must specify a volume type")
    host = _text(mapping(spec.get("hostPath")).get("path")) or ""
    recycled = spec.get("persistentVolumeReclaimPolicy") == "Recycle"
    if is_mapping(spec.get("hostPath")) and recycled and posixpath.normpath(host) == "/":
        detail = "may not be 'recycle' for a hostPath mount of '/'"
        yield FieldError(f"{field}.persistentVolumeReclaimPolicy", FORBIDDEN, None, detail)


_MORE_THAN_ONE = "may not specify more than 1 volume type"
FILE_MODE_ERROR = "must be a number between 0 and 0777 (octal), both inclusive"


def volume_source(
    volume: Mapping[str, Any], where: str, name: str, pod: str = "", *, is_pod: bool = False
) -> Errors:
    """validateVolumeSource: one source, checked as its own rule says (:data:`_VOLUME_SOURCES`;
    an image volume's reference only for a pod, ``is_pod``), and any later one refused. A
    volume written
    without any is an emptyDir (SetDefaults_Volume), so "must specify a volume type" is
    never met from a manifest."""
    counted = False
    for key, reported, check in _VOLUME_SOURCES:
        source = volume.get(key)
        # None asked first: a volume leaves out all its sources but one
        if source is None or not is_mapping(source):
            continue  # null is no source; another type is the decoder's to refuse
        if counted:
            yield FieldError(f"{where}.{reported}", FORBIDDEN, None, _MORE_THAN_ONE)
        else:
            counted = True
            if check is not None:
                yield from check(source, f"{where}.{key}")
            if key == EPHEMERAL:
                yield from ephemeral_claim_name(where, name, pod)
            if key == "image":
                yield from _image(source, f"{where}.image", is_pod)
        if key == "iscsi":
            yield from _iscsi_name(source, where, name)


def _empty_dir(source: Mapping[str, Any], where: str) -> Errors:
    raw = source.get("sizeLimit")
    limit = None if raw is None else _quantity(raw)
    if limit is not None and limit < 0:
        detail = "SizeLimit field must be a valid resource quantity"
        yield FieldError(f"{where}.sizeLimit", FORBIDDEN, None, detail)


HOST_PATH_TYPES = (
    "",
    "BlockDevice",
    "CharDevice",
    "Directory",
    "DirectoryOrCreate",
    "File",
    "FileOrCreate",
    "Socket",
)  # sets.List(supportedHostPathTypes): sorted


def _host_path(source: Mapping[str, Any], where: str) -> Errors:
    """validateHostPathVolumeSource: a path, without ``..``, and, once a path is given, a
    known type."""
    yield from _path_errors(source, where)
    path = source.get("path", "")
    kind = _text(source.get("type"))
    if isinstance(path, str) and path and kind is not None and kind not in HOST_PATH_TYPES:
        # a *HostPathType, marshalled
        yield not_supported_value(f"{where}.type", json_quote(kind), HOST_PATH_TYPES)


def _path_errors(source: Mapping[str, Any], where: str) -> Errors:
    """validateLocalVolumeSource, and the path of validateHostPathVolumeSource: a path
    required (unset is "": a missing one too), then without ``..``."""
    path = source.get("path", "")
    if not isinstance(path, str):
        return  # of a wrong type: the decoder's to refuse
    if not path:
        yield FieldError(f"{where}.path", REQUIRED)
        return
    yield from _no_backsteps(path, f"{where}.path")


def _no_backsteps(path: str, field: str) -> Errors:
    """validatePathNoBacksteps: one error however many ``..`` elements."""
    if has_backsteps(path):
        yield invalid(field, path, "must not contain '..'")


def has_backsteps(path: str) -> bool:
    """A ``..`` element in the path (validatePathNoBacksteps)."""
    return ".." in path.split("/")


def descending_path(path: str, field: str) -> Errors:
    """validateLocalDescendingPath: relative (path.IsAbs), then without ``..`` elements."""
    if path.startswith("/"):
        yield invalid(field, path, "must be a relative path")
    yield from _no_backsteps(path, field)


def local_path(path: str, field: str) -> Errors:
    """ValidateLocalNonReservedPath: a descending path (:func:`descending_path`), and not
    starting ``..`` (unless ``../``, already refused)."""
    yield from descending_path(path, field)
    if path.startswith("..") and not path.startswith("../"):
        yield invalid(field, path, "must not start with '..'")


def _mode(source: Mapping[str, Any], key: str, where: str) -> Errors:
    """A file mode, between 0 and 0777 when written (a defaultMode left out is 0644)."""
    mode = _int(source.get(key))
    if source.get(key) is not None and mode is not None and not 0 <= mode <= 0o777:
        yield FieldError(f"{where}.{key}", INVALID, str(mode), FILE_MODE_ERROR)


def key_to_path(item: Mapping[str, Any], where: str) -> Errors:
    """validateKeyToPath: a key, a relative path of no ``..``, a mode."""
    key, path = _text(item.get("key")), _text(item.get("path"))
    if key == "":
        yield FieldError(f"{where}.key", REQUIRED)
    if path is None:
        return
    if not path:
        yield FieldError(f"{where}.path", REQUIRED)
    yield from local_path(path, f"{where}.path")
    yield from _mode(item, "mode", where)


def _named_items(source: Mapping[str, Any], name_key: str, where: str) -> Errors:
    """validateSecretVolumeSource and validateConfigMapVolumeSource: the object's name,
    the default mode, each item."""
    if _text(source.get(name_key)) == "":
        yield FieldError(f"{where}.{name_key}", REQUIRED)
    yield from _mode(source, "defaultMode", where)
    for i, item in enumerate(as_list(source.get("items"))):
        yield from key_to_path(mapping(item), f"{where}.items[{i}]")


def _secret(source: Mapping[str, Any], where: str) -> Errors:
    yield from _named_items(source, "secretName", where)


def _config_map(source: Mapping[str, Any], where: str) -> Errors:
    yield from _named_items(source, "name", where)


def _nfs(source: Mapping[str, Any], where: str) -> Errors:
    """validateNFSVolumeSource: a server, and an absolute path."""
    if _text(source.get("server")) == "":
        yield FieldError(f"{where}.server", REQUIRED)
    path = _text(source.get("path"))
    if path is None:
        return
    if not path:
        yield FieldError(f"{where}.path", REQUIRED)
    if not path.startswith("/"):
        yield invalid(f"{where}.path", path, "must be an absolute path")


_IQN = re.compile(r"iqn\.[0-9]{4}-[0-9]{2}\.([A-Za-z0-9\-.]+)(:[^,;*&$|\t\n\f\r ]+)\Z")
_EUI = re.compile(r"\Aeui.[A-Za-z0-9]{16}\Z")
_NAA = re.compile(r"\Anaa.[A-Za-z0-9]{32}\Z")
_ISCSI_FORMATS = {"iqn": _IQN, "eui": _EUI, "naa": _NAA}
_ISCSI_PREFIX = "must be valid format starting with iqn, eui, or naa"


def _iscsi(source: Mapping[str, Any], where: str) -> Errors:
    """validateISCSIVolumeSource: a target portal, an IQN of one of its formats, a LUN of
    0-255, a secret for CHAP, an initiator name of one of the formats."""
    if _text(source.get("targetPortal")) == "":
        yield FieldError(f"{where}.targetPortal", REQUIRED)
    iqn = _text(source.get("iqn"))
    if iqn == "":
        yield FieldError(f"{where}.iqn", REQUIRED)
    elif iqn is not None:
        yield from _iscsi_format(iqn, f"{where}.iqn")
    yield from _iscsi_lun_and_chap(source, where)
    initiator = _text(source.get("initiatorName"))
    if source.get("initiatorName") is not None and initiator is not None:
        yield from _iscsi_format(initiator, f"{where}.initiatorname")


def _iscsi_lun_and_chap(source: Mapping[str, Any], where: str) -> Errors:
    lun = _int(source.get("lun"))
    if lun is not None and not 0 <= lun <= 255:
        yield FieldError(f"{where}.lun", INVALID, str(lun), "must be between 0 and 255, inclusive")
    chap = source.get("chapAuthDiscovery") is True or source.get("chapAuthSession") is True
    if chap and source.get("secretRef") is None:
        yield FieldError(f"{where}.secretRef", REQUIRED)


def _iscsi_pv(source: Mapping[str, Any], where: str, name: str) -> Errors:
    """validateISCSIPersistentVolumeSource: as a pod's iSCSI volume (:func:`_iscsi`), but
    the volume's name and target portal too long reported at ``targetportal`` after the
    portal, any bad format in one word, and a written ``secretRef`` naming its secret."""
    portal = _text(source.get("targetPortal"))
    if portal == "":
        yield FieldError(f"{where}.targetPortal", REQUIRED)
    if source.get("initiatorName") is not None and len(f"{name}:{portal or ''}") > 64:
        yield invalid(f"{where}.targetportal", portal or "", _ISCSI_TOO_LONG)
    iqn = _text(source.get("iqn"))
    if iqn == "":
        yield FieldError(f"{where}.iqn", REQUIRED)
    elif iqn is not None:
        yield from _iscsi_pv_format(iqn, f"{where}.iqn")
    yield from _iscsi_lun_and_chap(source, where)
    yield from _secret_ref_fields(source, where, "name")
    initiator = _text(source.get("initiatorName"))
    if source.get("initiatorName") is not None and initiator is not None:
        yield from _iscsi_pv_format(initiator, f"{where}.initiatorname")


def _iscsi_pv_format(value: str, field: str) -> Errors:
    pattern = _ISCSI_FORMATS.get(value[:3])
    if pattern is None or not pattern.search(value):
        yield invalid(field, value, "must be valid format")


def _iscsi_format(value: str, field: str) -> Errors:
    pattern = _ISCSI_FORMATS.get(value[:3])
    if pattern is None:
        yield invalid(field, value, _ISCSI_PREFIX)
    elif not pattern.search(value):  # MatchString: the iqn pattern is not anchored at the start
        yield invalid(field, value, "must be valid format")


def _iscsi_name(source: Mapping[str, Any], where: str, name: str) -> Errors:
    """validateVolumeSource's own check of an iSCSI volume with an initiator name: its
    name and target portal together under 65 characters."""
    portal = _text(source.get("targetPortal")) or ""
    if source.get("initiatorName") is not None and len(f"{name}:{portal}") > 64:
        yield invalid(f"{where}.name", name, _ISCSI_TOO_LONG)


_ISCSI_TOO_LONG = (
    "Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters "
    "if iscsi.initiatorName is specified."
)


def _claim(source: Mapping[str, Any], where: str) -> Errors:
    """validatePersistentClaimVolumeSource."""
    if _text(source.get("claimName")) == "":
        yield FieldError(f"{where}.claimName", REQUIRED)


def _rbd(source: Mapping[str, Any], where: str) -> Errors:
    """validateRBDVolumeSource: monitors and an image."""
    if not as_list(source.get("monitors")):
        yield FieldError(f"{where}.monitors", REQUIRED)
    if _text(source.get("image")) == "":
        yield FieldError(f"{where}.image", REQUIRED)


_VOLUME_FIELD_PATHS = (
    "metadata.annotations",
    "metadata.labels",
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
)  # sets.List(validVolumeDownwardAPIFieldPathExpressions): sorted
_POD_FIELD_LABELS = frozenset(
    {
        *_VOLUME_FIELD_PATHS,
        "spec.nodeName",
        "spec.restartPolicy",
        "spec.serviceAccountName",
        "spec.schedulerName",
        "status.phase",
        "status.hostIP",
        "status.hostIPs",
        "status.podIP",
        "status.podIPs",
    }
)
"""What ConvertDownwardAPIFieldLabel takes of a v1 pod (``spec.host`` is ``spec.nodeName``)."""
_RESOURCE_FIELDS = (
    "limits.cpu",
    "limits.ephemeral-storage",
    "limits.memory",
    "requests.cpu",
    "requests.ephemeral-storage",
    "requests.memory",
)  # sets.List(validContainerResourceFieldPathExpressions): sorted
_HUGEPAGE_FIELDS = ("limits.hugepages-", "requests.hugepages-")


def _downward_api(source: Mapping[str, Any], where: str) -> Errors:
    """validateDownwardAPIVolumeSource: the default mode, then each item, reported at the
    source's own path (upstream indexes none)."""
    yield from _mode(source, "defaultMode", where)
    for item in as_list(source.get("items")):
        yield from downward_file(mapping(item), where)


def downward_file(item: Mapping[str, Any], where: str) -> Errors:
    """validateDownwardAPIVolumeFile: a relative path, one of fieldRef (a pod field a
    volume may show) and resourceFieldRef, a mode."""
    path = _text(item.get("path"))
    if path == "":
        yield FieldError(f"{where}.path", REQUIRED)
    if path is not None:
        yield from local_path(path, f"{where}.path")
    field_ref, resource_ref = item.get("fieldRef"), item.get("resourceFieldRef")
    if is_mapping(field_ref):
        yield from _object_field(field_ref, f"{where}.fieldRef")
        if resource_ref is not None:
            detail = "fieldRef and resourceFieldRef can not be specified simultaneously"
            yield invalid(where, "resource", detail)
    elif is_mapping(resource_ref):
        yield from _resource_field(resource_ref, f"{where}.resourceFieldRef")
    elif field_ref is None and resource_ref is None:
        detail = "one of fieldRef and resourceFieldRef is required"
        yield FieldError(where, REQUIRED, None, detail)
    yield from _mode(item, "mode", where)


def _object_field(
    selector: Mapping[str, Any], where: str, supported: tuple[str, ...] = _VOLUME_FIELD_PATHS
) -> Errors:
    """validateObjectFieldSelector of a volume's file or (``supported``:
    :data:`_ENV_FIELD_PATHS`) an environment variable (its apiVersion ``v1`` when empty,
    SetDefaults_ObjectFieldSelector, so never required here)."""
    version = _text(selector.get("apiVersion"))
    field_path = _text(selector.get("fieldPath"))
    if version is None or field_path is None:
        return
    version = version or "v1"
    if not field_path:
        yield FieldError(f"{where}.fieldPath", REQUIRED)
        return
    subscripted = _subscripted(field_path)
    problem = None
    if version != "v1":
        problem = f"unsupported pod version: {version}"
    elif subscripted is not None and subscripted[0] not in _VOLUME_FIELD_PATHS[:2]:
        problem = f"field label does not support subscript: {field_path}"
    elif subscripted is None and field_path not in _POD_FIELD_LABELS | {"spec.host"}:
        problem = f"field label not supported: {field_path}"
    if problem is not None:
        yield invalid(f"{where}.fieldPath", field_path, f"error converting fieldPath: {problem}")
    elif subscripted is not None:
        path, key = subscripted
        yield from label_name(key.lower() if path == "metadata.annotations" else key, where)
    else:
        internal = "spec.nodeName" if field_path == "spec.host" else field_path
        if internal not in supported:
            yield not_supported(f"{where}.fieldPath", internal, supported)


def _subscripted(field_path: str) -> tuple[str, str] | None:
    """fieldpath.SplitMaybeSubscriptedPath: ``path['key']`` as (path, key)."""
    if not field_path.endswith("']"):
        return None
    path, found, key = field_path[:-2].partition("['")
    return (path, key) if found and path else None


def _resource_field(selector: Mapping[str, Any], where: str, volume: bool = True) -> Errors:
    """validateContainerResourceFieldSelector of a volume's file (a container named) or of
    an environment variable (its own container's): a resource it may show, then its
    divisor (validateContainerResourceDivisor)."""
    resource = _text(selector.get("resource"))
    if volume and _text(selector.get("containerName")) == "":
        yield FieldError(f"{where}.containerName", REQUIRED)
    elif resource == "":
        yield FieldError(f"{where}.resource", REQUIRED)
    elif (
        resource is not None
        and resource not in _RESOURCE_FIELDS
        and not resource.startswith(_HUGEPAGE_FIELDS)
    ):
        yield not_supported(f"{where}.resource", resource, _RESOURCE_FIELDS)
    if resource is not None:
        yield from _divisor(resource, selector.get("divisor"), f"{where}.divisor")


def _divisor(resource: str, raw: object, field: str) -> Errors:
    """validateContainerResourceDivisor: a divisor written and not zero is, as
    Quantity.String() prints it, one the resource may be divided by."""
    value = None if raw is None else _quantity(raw)
    if value is None or value == 0:
        return
    shown = _shown(value, raw)
    kind = _DIVISOR_KINDS.get(resource)
    if kind is None and resource.startswith(_HUGEPAGE_FIELDS):
        kind = "hugepages"
    if kind == "cpu" and shown not in ("1m", "1"):
        yield invalid(
            field, resource, "only divisor's values 1m and 1 are supported with the cpu resource"
        )
    elif kind not in (None, "cpu") and shown not in _BYTE_DIVISORS:
        values = ", ".join(_BYTE_DIVISORS)
        detail = f"only divisor's values {values} are supported with the {kind} resource"
        yield invalid(field, resource, detail)


_DIVISOR_KINDS = {
    "limits.cpu": "cpu", "requests.cpu": "cpu", "limits.memory": "memory",
    "requests.memory": "memory", "limits.ephemeral-storage": "local ephemeral storage",
    "requests.ephemeral-storage": "local ephemeral storage",
}  # fmt: skip
_BYTE_DIVISORS = (
    "1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei",
)  # fmt: skip


_MIN_TOKEN_SECONDS = 10 * 60
_MAX_TOKEN_SECONDS = 1 << 32


def _projected(source: Mapping[str, Any], where: str) -> Errors:
    """validateProjectedVolumeSource: the default mode, then validateProjectionSources:
    each source one kind, its objects named, its items' and files' paths given once across
    the sources, a token of 10 minutes to 2^32 seconds (3600 unless written) at a path
    (reported at the volume's own ``path``, as upstream does)."""
    yield from _mode(source, "defaultMode", where)
    paths: set[str] = set()
    for i, raw in enumerate(as_list(source.get("sources"))):
        projection = mapping(raw)
        at_source = f"{where}.sources[{i}]"
        kinds = 0
        for kind in ("secret", "configMap"):
            found = projection.get(kind)
            if not is_mapping(found):
                continue
            kinds += 1
            name = _text(found.get("name"))
            if name == "":
                yield FieldError(f"{at_source}.{kind}.name", REQUIRED)
            for j, item in enumerate(as_list(found.get("items"))):
                item = mapping(item)
                yield from key_to_path(item, f"{at_source}.{kind}.items[{j}]")
                path = _text(item.get("path"))
                if path:
                    if path in paths:
                        yield invalid(where, name or "", "conflicting duplicate paths")
                    paths.add(path)
        downward = projection.get("downwardAPI")
        if is_mapping(downward):
            kinds += 1
            for item in as_list(downward.get("items")):
                item = mapping(item)
                yield from downward_file(item, f"{at_source}.downwardAPI")
                path = _text(item.get("path"))
                if path:
                    if path in paths:
                        yield invalid(where, path, "conflicting duplicate paths")
                    paths.add(path)
        token = projection.get("serviceAccountToken")
        if is_mapping(token):
            kinds += 1
            yield from _token(token, at_source, where)
        kinds += sum(
            is_mapping(projection.get(k)) for k in ("clusterTrustBundle", "podCertificate")
        )
        if kinds > 1:
            detail = "may not specify more than 1 volume type per source"
            yield FieldError(at_source, FORBIDDEN, None, detail)


def _token(token: Mapping[str, Any], at_source: str, where: str) -> Errors:
    raw = token.get("expirationSeconds")
    seconds = 3600 if raw is None else _int(raw)
    field = f"{at_source}.serviceAccountToken.expirationSeconds"
    if seconds is not None and seconds < _MIN_TOKEN_SECONDS:
        yield FieldError(
            field, INVALID, str(seconds), "may not specify a duration less than 10 minutes"
        )
    if seconds is not None and seconds > _MAX_TOKEN_SECONDS:
        detail = "may not specify a duration larger than 2^32 seconds"
        yield FieldError(field, INVALID, str(seconds), detail)
    path = _text(token.get("path"))
    if path == "":
        yield FieldError(f"{where}.path", REQUIRED)
    elif path is not None:
        yield from local_path(path, f"{where}.path")


_CSI_DRIVER_LENGTH = 63


def _csi(source: Mapping[str, Any], where: str) -> Errors:
    """validateCSIVolumeSource: ValidateCSIDriverName, then the publish secret's name (a
    bad one reported at ``csi.name``, as upstream does)."""
    yield from _csi_driver(source, where)
    secret = source.get("nodePublishSecretRef")
    if is_mapping(secret):
        name = _text(secret.get("name"))
        if name == "":
            yield FieldError(f"{where}.nodePublishSecretRef.name", REQUIRED)
        elif name is not None:
            yield from _each(f"{where}.name", name, dns1123_subdomain_errors(name))


def _csi_driver(source: Mapping[str, Any], where: str) -> Errors:
    """ValidateCSIDriverName."""
    driver = _text(source.get("driver"))
    if driver is not None:
        if not driver:
            yield FieldError(f"{where}.driver", REQUIRED)
        if len(driver) > _CSI_DRIVER_LENGTH:
            detail = f"may not be more than {_CSI_DRIVER_LENGTH} bytes"
            yield FieldError(f"{where}.driver", TOO_LONG, None, detail)
        yield from _each(f"{where}.driver", driver, dns1123_subdomain_errors(driver.lower()))


_PV_SECRET_REFS = (
    "controllerPublishSecretRef",
    "controllerExpandSecretRef",
    "nodePublishSecretRef",
    "nodeExpandSecretRef",
)


def _csi_pv(source: Mapping[str, Any], where: str) -> Errors:
    """validateCSIPersistentVolumeSource: the driver's name, a volume handle, and each
    secret reference written (validatePVSecretReference: a name that is a DNS subdomain, a
    namespace that is a DNS label)."""
    yield from _csi_driver(source, where)
    yield from _required(source, where, "volumeHandle")
    for key in _PV_SECRET_REFS:
        ref = source.get(key)
        if not is_mapping(ref):
            continue
        for part, rule in (("name", dns1123_subdomain_errors), ("namespace", dns1123_label_errors)):
            value = _text(ref.get(part))
            if value == "":
                yield FieldError(f"{where}.{key}.{part}", REQUIRED)
            elif value is not None:
                yield from _each(f"{where}.{key}.{part}", value, rule(value))


def _required(source: Mapping[str, Any], where: str, *names: str) -> Errors:
    """Each string field of ``names`` the source leaves empty (unset is ""), in order."""
    for name in names:
        if _text(source.get(name)) == "":
            yield FieldError(f"{where}.{name}", REQUIRED)


_PARTITION_ERROR = "must be between 1 and 255, inclusive"
"""pdPartitionErrorMsg (InclusiveRangeError(1, 255)), though 0 is taken."""


def _partition(source: Mapping[str, Any], where: str) -> Errors:
    partition = _int(source.get("partition"))
    if partition is not None and not 0 <= partition <= 255:
        yield FieldError(f"{where}.partition", INVALID, str(partition), _PARTITION_ERROR)


def _git_repo(source: Mapping[str, Any], where: str) -> Errors:
    """validateGitRepoVolumeSource: a repository, and a directory that is relative
    (validateLocalDescendingPath) without ``..`` elements."""
    yield from _required(source, where, "repository")
    directory = _text(source.get("directory"))
    if directory is not None:
        if directory.startswith("/"):
            yield invalid(f"{where}.directory", directory, "must be a relative path")
        yield from _no_backsteps(directory, f"{where}.directory")


def _gce_disk(source: Mapping[str, Any], where: str) -> Errors:
    """validateGCEPersistentDiskVolumeSource, whose errors validateVolumeSource reports at
    ``persistentDisk``, not at the source's own field."""
    at_disk = where.removesuffix(".gcePersistentDisk") + ".persistentDisk"
    yield from _required(source, at_disk, "pdName")
    yield from _partition(source, at_disk)


def _aws_disk(source: Mapping[str, Any], where: str) -> Errors:
    """validateAWSElasticBlockStoreVolumeSource."""
    yield from _required(source, where, "volumeID")
    yield from _partition(source, where)


def _glusterfs(source: Mapping[str, Any], where: str) -> Errors:
    yield from _required(source, where, "endpoints", "path")


def _glusterfs_pv(source: Mapping[str, Any], where: str) -> Errors:
    """validateGlusterfsPersistentVolumeSource: as a pod's, and an endpoints namespace,
    when written, a namespace name (ValidateNamespaceName)."""
    yield from _glusterfs(source, where)
    namespace = _text(source.get("endpointsNamespace"))
    if source.get("endpointsNamespace") is None or namespace is None:
        return
    field = f"{where}.endpointsNamespace"
    if not namespace:
        detail = "if the endpointnamespace is set, it must be a valid namespace name"
        yield invalid(field, namespace, detail)
    else:
        yield from _each(field, namespace, dns1123_label_errors(namespace))


def _flocker(source: Mapping[str, Any], where: str) -> Errors:
    """validateFlockerVolumeSource: one of the dataset's name and UUID, a name of no ``/``."""
    name, uuid = _text(source.get("datasetName")), _text(source.get("datasetUUID"))
    if name == "" and uuid == "":
        yield FieldError(where, REQUIRED, None, "one of datasetName and datasetUUID is required")
    if name and uuid:
        detail = "datasetName and datasetUUID can not be specified simultaneously"
        yield invalid(where, "resource", detail)
    if name and "/" in name:
        yield invalid(f"{where}.datasetName", name, "must not contain '/'")


def _secret_ref_name(source: Mapping[str, Any], where: str) -> Errors:
    """A ``secretRef``, when written, names its secret."""
    yield from _secret_ref_fields(source, where, "name")


def _secret_ref_fields(source: Mapping[str, Any], where: str, *keys: str) -> Errors:
    """A ``secretRef``, when written, holds each of ``keys``, in order."""
    ref = source.get("secretRef")
    if is_mapping(ref):
        yield from _required(ref, f"{where}.secretRef", *keys)


def _cinder(source: Mapping[str, Any], where: str) -> Errors:
    yield from _required(source, where, "volumeID")
    yield from _secret_ref_name(source, where)


def _cinder_pv(source: Mapping[str, Any], where: str) -> Errors:
    """validateCinderPersistentVolumeSource: a volume ID, a written ``secretRef``'s name
    and namespace."""
    yield from _required(source, where, "volumeID")
    yield from _secret_ref_fields(source, where, "name", "namespace")


def _cephfs(source: Mapping[str, Any], where: str) -> Errors:
    """validateCephFSVolumeSource, reported at ``cephfs`` (a second source at ``cephFS``)."""
    if not as_list(source.get("monitors")):
        yield FieldError(f"{where}.monitors", REQUIRED)


_REGISTRY = "must be a host:port pair or multiple pairs separated by commas"


def _quobyte(source: Mapping[str, Any], where: str) -> Errors:
    """validateQuobyteVolumeSource: a registry (the tenant's length checked only beside
    one, and each of its pairs only beside a tenant of at most 64), then a volume."""
    registry = _text(source.get("registry"))
    tenant = _text(source.get("tenant")) or ""
    if registry == "":
        yield FieldError(f"{where}.registry", REQUIRED, None, _REGISTRY)
    elif len(tenant.encode()) >= 65:
        detail = "must be a UUID and may not exceed a length of 64 characters"
        yield FieldError(f"{where}.tenant", REQUIRED, None, detail)
    elif registry is not None:
        for pair in registry.split(","):
            if not _host_port(pair):
                yield invalid(f"{where}.registry", registry, _REGISTRY)
    yield from _required(source, where, "volume")


def _host_port(pair: str) -> bool:
    """Whether net.SplitHostPort splits ``pair``: a last colon before the port, a host of
    no colon unless bracketed (``[::1]:80``), and no stray bracket."""
    last = pair.rfind(":")
    if last < 0:
        return False
    start, end = 0, 0
    if pair.startswith("["):
        close = pair.find("]")
        if close < 0 or close + 1 != last:
            return False
        start, end = 1, close + 1
    elif ":" in pair[:last]:
        return False
    return "[" not in pair[start:] and "]" not in pair[end:]


_FC_TARGETS = "must specify either targetWWNs or wwids, but not both"


def _fc(source: Mapping[str, Any], where: str) -> Errors:
    """validateFCVolumeSource: target WWNs (with a LUN of 0-255) or WWIDs, not both."""
    targets, wwids = as_list(source.get("targetWWNs")), as_list(source.get("wwids"))
    if not targets and not wwids:
        yield FieldError(f"{where}.targetWWNs", REQUIRED, None, _FC_TARGETS)
    if targets and wwids:
        shown = "[" + ",".join(json_quote(_str(t)) for t in targets) + "]"  # json.Marshal
        detail = "targetWWNs and wwids can not be specified simultaneously"
        yield FieldError(f"{where}.targetWWNs", INVALID, shown, detail)
    if targets:
        lun = source.get("lun")
        if lun is None:
            detail = "lun is required if targetWWNs is specified"
            yield FieldError(f"{where}.lun", REQUIRED, None, detail)
        elif isinstance(lun, int) and not 0 <= lun <= 255:
            detail = "must be between 0 and 255, inclusive"
            yield FieldError(f"{where}.lun", INVALID, str(lun), detail)


def _flex(source: Mapping[str, Any], where: str) -> Errors:
    """validateFlexVolumeSource: a driver, and no option in the kubernetes.io or k8s.io
    namespaces (a Go map, walked here by key)."""
    yield from _required(source, where, "driver")
    for key in sorted(str(k) for k in mapping(source.get("options"))):
        prefix = key.split("/", 1)[0] if "/" in key else key
        normalized = "." + prefix.lower()
        if normalized.endswith((".kubernetes.io", ".k8s.io")):
            detail = "kubernetes.io and k8s.io namespaces are reserved"
            yield invalid(f"{where}.options[{key}]", key, detail)


def _azure_file(source: Mapping[str, Any], where: str) -> Errors:
    yield from _required(source, where, "secretName", "shareName")


def _azure_file_pv(source: Mapping[str, Any], where: str) -> Errors:
    """validateAzureFilePV: as a pod's, and a written secret namespace not empty."""
    yield from _azure_file(source, where)
    if source.get("secretNamespace") is not None:
        yield from _required(source, where, "secretNamespace")


_CACHING_MODES = ("None", "ReadOnly", "ReadWrite")  # sets.List: sorted
_DISK_KINDS = ("Dedicated", "Managed", "Shared")  # sets.List: sorted
_MANAGED_URI = (
    "/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/"
    "{disk-id}"
)
_BLOB_URI = "https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd"


def _azure_disk(source: Mapping[str, Any], where: str) -> Errors:
    """validateAzureDisk after SetDefaults_AzureDiskVolumeSource (caching ReadWrite, kind
    Shared): a disk name and URI, the caching mode and kind of their values, and a URI of
    the kind's form (a managed disk's ``/subscriptions/``, a blob's ``https://``)."""
    yield from _required(source, where, "diskName", "diskURI")
    uri = _text(source.get("diskURI")) or ""
    caching = _text(source.get("cachingMode"))
    written = source.get("cachingMode") is not None
    if written and caching is not None and caching not in _CACHING_MODES:
        yield not_supported(f"{where}.cachingMode", caching, _CACHING_MODES)
    kind = "Shared" if source.get("kind") is None else _text(source.get("kind"))
    if kind is None:
        return
    if kind not in _DISK_KINDS:
        yield not_supported(f"{where}.kind", kind, _DISK_KINDS)
    if kind == "Managed" and not uri.startswith("/subscriptions/"):
        yield not_supported(f"{where}.diskURI", uri, (_MANAGED_URI,))
    if kind != "Managed" and not uri.startswith("https://"):
        yield not_supported(f"{where}.diskURI", uri, (_BLOB_URI,))


def _vsphere(source: Mapping[str, Any], where: str) -> Errors:
    yield from _required(source, where, "volumePath")


def _photon(source: Mapping[str, Any], where: str) -> Errors:
    yield from _required(source, where, "pdID")


def _portworx(source: Mapping[str, Any], where: str) -> Errors:
    yield from _required(source, where, "volumeID")


def _storageos(source: Mapping[str, Any], where: str) -> Errors:
    """validateStorageOSVolumeSource: a volume name and any namespace DNS labels, a
    ``secretRef`` naming its secret."""
    yield from _storageos_volume(source, where)
    yield from _secret_ref_name(source, where)


def _storageos_volume(source: Mapping[str, Any], where: str) -> Errors:
    name = _text(source.get("volumeName"))
    if name == "":
        yield FieldError(f"{where}.volumeName", REQUIRED)
    elif name is not None:
        yield from _each(f"{where}.volumeName", name, dns1123_label_errors(name))
    namespace = _text(source.get("volumeNamespace"))
    if namespace:
        yield from _each(f"{where}.volumeNamespace", namespace, dns1123_label_errors(namespace))


def _storageos_pv(source: Mapping[str, Any], where: str) -> Errors:
    """validateStorageOSPersistentVolumeSource: as a pod's, a written ``secretRef`` naming
    its secret's namespace too."""
    yield from _storageos_volume(source, where)
    yield from _secret_ref_fields(source, where, "name", "namespace")


def _scale_io(source: Mapping[str, Any], where: str) -> Errors:
    """validateScaleIOVolumeSource: a gateway, a system, a volume name (its required
    ``secretRef`` is not checked by validation)."""
    yield from _required(source, where, "gateway", "system", "volumeName")


def _image(source: Mapping[str, Any], where: str, pod: bool) -> Errors:
    """validateImageVolumeSource after SetDefaults_ImageVolumeSource (a pull policy unset
    is Always or IfNotPresent): a reference, required of a pod only (a template's is
    checked on the pods its controller creates), then the pull policy of its values."""
    if pod:
        yield from _image_reference(source, where)
    policy = _text(source.get("pullPolicy"))
    if policy and policy not in _PULL_POLICIES:
        yield not_supported(f"{where}.pullPolicy", policy, _PULL_POLICIES)


def _image_reference(source: Mapping[str, Any], where: str) -> Errors:
    yield from _required(source, where, "reference")


_Rule = Callable[[Mapping[str, Any], str], Errors]

_VOLUME_SOURCES: tuple[tuple[str, str, _Rule | None], ...] = (
    ("emptyDir", "emptyDir", _empty_dir),
    ("hostPath", "hostPath", _host_path),
    ("gitRepo", "gitRepo", _git_repo),
    ("gcePersistentDisk", "gcePersistentDisk", _gce_disk),
    ("awsElasticBlockStore", "awsElasticBlockStore", _aws_disk),
    ("secret", "secret", _secret),
    ("nfs", "nfs", _nfs),
    ("iscsi", "iscsi", _iscsi),
    ("glusterfs", "glusterfs", _glusterfs),
    ("flocker", "flocker", _flocker),
    ("persistentVolumeClaim", "persistentVolumeClaim", _claim),
    ("rbd", "rbd", _rbd),
    ("cinder", "cinder", _cinder),
    ("cephfs", "cephFS", _cephfs),
    ("quobyte", "quobyte", _quobyte),
    ("downwardAPI", "downwarAPI", _downward_api),
    ("fc", "fc", _fc),
    ("flexVolume", "flexVolume", _flex),
    ("configMap", "configMap", _config_map),
    ("azureFile", "azureFile", _azure_file),
    ("vsphereVolume", "vsphereVolume", _vsphere),
    ("photonPersistentDisk", "photonPersistentDisk", _photon),
    ("portworxVolume", "portworxVolume", _portworx),
    ("azureDisk", "azureDisk", _azure_disk),
    ("storageos", "storageos", _storageos),
    ("projected", "projected", _projected),
    ("scaleIO", "scaleIO", _scale_io),
    ("csi", "csi", _csi),
    (EPHEMERAL, "ephemeral", ephemeral_volume_source),
    ("image", "image", None),
)
"""Each volume source's field, the field a second source is reported at (upstream's own
spelling, ``downwarAPI`` too) and its rule, in validateVolumeSource's order (an image
volume's reference is checked only for a pod: :func:`_image`)."""

_PV_SOURCES: tuple[tuple[str, str, _Rule | None], ...] = (
    ("hostPath", "hostPath", _host_path),
    ("gcePersistentDisk", "gcePersistentDisk", _gce_disk),
    ("awsElasticBlockStore", "awsElasticBlockStore", _aws_disk),
    ("glusterfs", "glusterfs", _glusterfs_pv),
    ("flocker", "flocker", _flocker),
    ("nfs", "nfs", _nfs),
    ("rbd", "rbd", _rbd),
    ("quobyte", "quobyte", _quobyte),
    ("cephfs", "cephFS", _cephfs),
    ("iscsi", "iscsi", None),
    ("cinder", "cinder", _cinder_pv),
    ("fc", "fc", _fc),
    ("flexVolume", "flexVolume", _flex),
    ("azureFile", "azureFile", _azure_file_pv),
    ("vsphereVolume", "vsphereVolume", _vsphere),
    ("photonPersistentDisk", "photonPersistentDisk", _photon),
    ("portworxVolume", "portworxVolume", _portworx),
    ("azureDisk", "azureDisk", _azure_disk),
    ("scaleIO", "scaleIO", _scale_io),
    ("local", "local", _path_errors),
    ("storageos", "storageos", _storageos_pv),
    ("csi", "csi", _csi_pv),
)
"""The sources ValidatePersistentVolumeSpec counts, in its order, each with the field a
second source is reported at (upstream's own spelling, ``cephFS`` too) and its rule
(iscsi's needs the volume's name, :func:`_iscsi_pv`): a pod volume's where upstream calls
the same function (validateRBDPersistentVolumeSource, validateCephFSPersistentVolumeSource,
validateFlexPersistentVolumeSource and validateScaleIOPersistentVolumeSource check what
their pod versions do)."""


def volume_mounts(
    mounts: list[Any],
    field: str,
    volumes: set[str] | None,
    devices: Mapping[str, str] | None = None,
    privileged: bool = False,
) -> Errors:
    """ValidateVolumeMounts: a name required and one of the pod's volumes (``volumes``;
    None when they are not all known here), a mountPath required and once in the
    container, neither the name nor the path one of the container's volume ``devices``
    (GetVolumeDeviceMap: each name's device path); then the subPath and subPathExpr,
    the mount propagation (Bidirectional only for a ``privileged`` container) and the
    recursive read-only mode (:func:`_mount_options`)."""
    devices = devices or {}
    paths: set[str] = set()
    for i, raw in enumerate(mounts):
        mount = mapping(raw)
        where = f"{field}[{i}]"
        name, path = _text(mount.get("name")), _text(mount.get("mountPath"))
        if name == "":
            yield FieldError(f"{where}.name", REQUIRED)
        if name is not None and volumes is not None and name not in volumes:
            yield FieldError(f"{where}.name", NOT_FOUND, go_quote(name))
        if path is not None:
            if not path:
                yield FieldError(f"{where}.mountPath", REQUIRED)
            if path in paths:
                yield invalid(f"{where}.mountPath", path, "must be unique")
            paths.add(path)
            if name is not None and name in devices:
                yield invalid(f"{where}.name", name, "must not already exist in volumeDevices")
            if path in devices.values():
                detail = "must not already exist as a path in volumeDevices"
                yield invalid(f"{where}.mountPath", path, detail)
        yield from _mount_options(mount, field, where, privileged)


MOUNT_PROPAGATIONS = ("Bidirectional", "HostToContainer", "None")  # sets.List: sorted
RECURSIVE_READ_ONLY = ("Disabled", "Enabled", "IfPossible")  # sets.List: sorted


def _mount_options(mount: Mapping[str, Any], field: str, where: str, privileged: bool) -> Errors:
    """The rest of ValidateVolumeMounts for one mount at ``where``: the subPath and
    subPathExpr descending paths (validateLocalDescendingPath) and not both,
    validateMountPropagation and validateMountRecursiveReadOnly. Upstream names all but
    the exclusion at the list's ``field``, with no index (``volumeMounts.subPath``)."""
    sub_path = _text(mount.get("subPath")) or ""
    expression = _text(mount.get("subPathExpr")) or ""
    if sub_path:
        yield from descending_path(sub_path, f"{field}.subPath")
    if expression:
        if sub_path:
            detail = "subPathExpr and subPath are mutually exclusive"
            yield invalid(f"{where}.subPathExpr", expression, detail)
        yield from descending_path(expression, f"{field}.subPathExpr")
    propagation = _text(mount.get("mountPropagation"))
    if mount.get("mountPropagation") is not None and propagation is not None:
        if propagation not in MOUNT_PROPAGATIONS:
            yield not_supported(f"{field}.mountPropagation", propagation, MOUNT_PROPAGATIONS)
        if propagation == "Bidirectional" and not privileged:
            detail = "Bidirectional mount propagation is available only to privileged containers"
            yield FieldError(f"{field}.mountPropagation", FORBIDDEN, None, detail)
    recursive = _text(mount.get("recursiveReadOnly"))
    if mount.get("recursiveReadOnly") is None or recursive is None or recursive == "Disabled":
        return
    rro = f"{field}.recursiveReadOnly"
    if recursive not in RECURSIVE_READ_ONLY:
        yield not_supported(rro, recursive, RECURSIVE_READ_ONLY)
        return
    if mount.get("readOnly") is not True:
        yield FieldError(rro, FORBIDDEN, None, "may only be specified when readOnly is true")
    if propagation not in (None, "None") and mount.get("mountPropagation") is not None:
        detail = "may only be specified when mountPropagation is None or not specified"
        yield FieldError(rro, FORBIDDEN, None, detail)


def volume_devices(
    devices: list[Any],
    field: str,
    volumes: set[str] | None,
    claims: set[str],
    mounts: Mapping[str, str],
) -> Errors:
    """ValidateVolumeDevices: a name required, once, of one of the pod's ``volumes`` (None
    when they are not all known here) that is a claim or an ephemeral volume (``claims``);
    a devicePath required, once, without ``..``; neither the name nor the path one of the
    container's volume ``mounts`` (GetVolumeMountMap: each name's mount path)."""
    names: set[str] = set()
    paths: set[str] = set()
    for i, raw in enumerate(devices):
        device = mapping(raw)
        where = f"{field}[{i}]"
        name, path = _text(device.get("name")), _text(device.get("devicePath"))
        if name is None or path is None:
            continue
        if not name:
            yield FieldError(f"{where}.name", REQUIRED)
        if name in names:
            yield invalid(f"{where}.name", name, "must be unique")
        if volumes is not None and name in volumes and name not in claims:
            detail = (
                "can only use volume source type of PersistentVolumeClaim or Ephemeral for "
                "block mode"
            )
            yield invalid(f"{where}.name", name, detail)
        if volumes is not None and name not in volumes:
            yield FieldError(f"{where}.name", NOT_FOUND, go_quote(name))
        if not path:
            yield FieldError(f"{where}.devicePath", REQUIRED)
        if path in paths:
            yield invalid(f"{where}.devicePath", path, "must be unique")
        if path and has_backsteps(path):
            yield invalid(f"{where}.devicePath", path, "can not contain backsteps ('..')")
        else:
            paths.add(path)
        if name in mounts:
            yield invalid(f"{where}.name", name, "must not already exist in volumeMounts")
        if path in mounts.values():
            detail = "must not already exist as a path in volumeMounts"
            yield invalid(f"{where}.devicePath", path, detail)
        if name:
            names.add(name)


def _path_map(items: list[Any], key: str) -> dict[str, str]:
    """GetVolumeMountMap and GetVolumeDeviceMap: each name's path, the last one written."""
    found: dict[str, str] = {}
    for raw in items:
        name, path = _text(mapping(raw).get("name")), _text(mapping(raw).get(key))
        if name is not None and path is not None:
            found[name] = path
    return found


def claim_volumes(spec: Mapping[str, Any]) -> set[str]:
    """The pod's volumes a device may name (isMatchedDevice): claims and ephemeral ones."""
    return {
        _str(volume.get("name"))
        for volume in map(mapping, as_list(spec.get("volumes")))
        if volume.get("persistentVolumeClaim") is not None or volume.get(EPHEMERAL) is not None
    }


def containers(spec: Mapping[str, Any], prefix: str, volumes: set[str] | None = None) -> Errors:
    """validateContainers then validateInitContainers: names (DNS labels, unique across both
    lists), images, ports, volume mounts (of ``volumes``, :func:`volume_mounts`),
    resources, restartPolicy, host ports unique (across the regular containers, and within
    each init container alone), and no lifecycle or probe on an init container that is no
    sidecar."""
    regular = containers_of(spec, "containers")
    names: set[str] = set()
    grace = grace_period(spec)
    for i, container in enumerate(regular):
        where = f"{prefix}.containers[{i}]"
        yield from container_common(container, where, volumes, spec)
        name = _text(container.get("name"))
        if name is not None:
            if name in names:
                yield FieldError(f"{where}.name", DUPLICATE, go_quote(name))
            names.add(name)
        yield from lifecycle_and_probes(container, where, grace)
        if container.get("restartPolicy") is not None:
            detail = "may not be set for non-init containers"
            yield FieldError(f"{where}.restartPolicy", FORBIDDEN, None, detail)
    yield from host_port_conflicts(regular, f"{prefix}.containers")
    for i, container in enumerate(containers_of(spec, "initContainers")):
        where = f"{prefix}.initContainers[{i}]"
        yield from container_common(container, where, volumes, spec)
        policy = _text(container.get("restartPolicy"))
        restart = container.get("restartPolicy")
        if restart is not None and policy is not None and policy != "Always":
            # validateInitContainerRestartPolicy
            yield not_supported(f"{where}.restartPolicy", policy, ("Always",))
        name = _text(container.get("name"))
        if name is not None:
            if name in names:
                yield FieldError(f"{where}.name", DUPLICATE, go_quote(name))
            elif name:
                names.add(name)
        # checkHostPortConflicts([]core.Container{ctr}, fldPath): each init container alone,
        # indexed as the list's first
        yield from host_port_conflicts([container], f"{prefix}.initContainers")
        if policy == "Always" and restart is not None:
            yield from lifecycle_and_probes(container, where, grace)
        else:
            for key in _SIDECAR_ONLY:
                if container.get(key) is not None:
                    detail = "may not be set for init containers without restartPolicy=Always"
                    yield FieldError(f"{where}.{key}", FORBIDDEN, None, detail)


_SIDECAR_ONLY = ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe")
"""What validateInitContainers forbids an init container that is no sidecar, in its order
(a sidecar's are validated as a regular container's, :func:`lifecycle_and_probes`)."""


def container_common(
    container: Mapping[str, Any],
    where: str,
    volumes: set[str] | None = None,
    spec: Mapping[str, Any] | None = None,
) -> Errors:
    """validateContainerCommon: name, image, termination message policy, ports, env,
    envFrom, volume mounts and devices, pull policy, resources, resize policy (against the
    pod ``spec``'s restart policy) and security context (against its ``hostUsers``)."""
    spec = spec or {}
    name = _text(container.get("name"))
    if name == "":
        yield FieldError(f"{where}.name", REQUIRED)
    elif name is not None:
        yield from _each(f"{where}.name", name, dns1123_label_errors(name))
    if _text(container.get("image")) == "":
        yield FieldError(f"{where}.image", REQUIRED)
    yield from _one_of(container, "terminationMessagePolicy", where, _MESSAGE_POLICIES)
    yield from container_ports(as_list(container.get("ports")), f"{where}.ports")
    yield from env(as_list(container.get("env")), f"{where}.env")
    yield from env_from(as_list(container.get("envFrom")), f"{where}.envFrom")
    mounts, devices = (
        as_list(container.get("volumeMounts")),
        as_list(container.get("volumeDevices")),
    )
    mount_paths, device_paths = _path_map(mounts, "mountPath"), _path_map(devices, "devicePath")
    context = mapping(container.get("securityContext"))
    privileged = context.get("privileged") is True
    yield from volume_mounts(mounts, f"{where}.volumeMounts", volumes, device_paths, privileged)
    claims = claim_volumes(spec)
    yield from volume_devices(devices, f"{where}.volumeDevices", volumes, claims, mount_paths)
    yield from _one_of(container, "imagePullPolicy", where, _PULL_POLICIES)
    resources = mapping(container.get("resources"))
    yield from resource_requirements(resources, f"{where}.resources", pod_level=False)
    claims_used = as_list(resources.get("claims"))
    yield from resource_claim_names(claims_used, pod_claim_names(spec), f"{where}.resources.claims")
    restart = _text(spec.get("restartPolicy")) or "Always"  # SetDefaults_PodSpec
    policies = as_list(container.get("resizePolicy"))
    yield from resize_policy(policies, f"{where}.resizePolicy", restart)
    if is_mapping(container.get("securityContext")):
        host_users = spec.get("hostUsers") is not False  # unset is true
        context = container["securityContext"]
        yield from security_context(context, f"{where}.securityContext", host_users)


_MESSAGE_POLICIES = ("File", "FallbackToLogsOnError")
_PULL_POLICIES = ("Always", "IfNotPresent", "Never")  # sets.List: sorted


def _one_of(container: Mapping[str, Any], key: str, where: str, values: tuple[str, ...]) -> Errors:
    """A policy SetDefaults_Container gives a container that writes none, else one of
    ``values``."""
    policy = _text(container.get(key))
    if policy and policy not in values:
        yield not_supported(f"{where}.{key}", policy, values)


def grace_period(spec: Mapping[str, Any]) -> int | None:
    """The pod's terminationGracePeriodSeconds, 30 when unset (SetDefaults_PodSpec); None
    for a value of a type the decoder refuses."""
    raw = spec.get("terminationGracePeriodSeconds")
    return 30 if raw is None else _int(raw)


def lifecycle_and_probes(
    container: Mapping[str, Any], where: str, grace: int | None = 30
) -> Errors:
    """validateContainers' (and a sidecar's) lifecycle handlers, then its liveness,
    readiness and startup probes, after SetDefaults_Probe and SetDefaults_HTTPGetAction
    (a path ``/``, the scheme ``HTTP``, a threshold or period of 0 defaulted): one handler
    each, its port a number from 1 to 65535 or a port name, an exec command; the counts not
    negative; a liveness or startup probe succeeding once, a readiness probe without its
    own grace period; a sleep of 0 seconds up to the pod's grace period (validateSleepAction
    with PodLifecycleSleepActionAllowZero, GA in v1.34). A stop signal is not checked: the
    ContainerStopSignals gate is off by default in v1.34."""
    lifecycle = container.get("lifecycle")
    if is_mapping(lifecycle):
        for hook in ("postStart", "preStop"):
            if is_mapping(lifecycle.get(hook)):
                hook_where = f"{where}.lifecycle.{hook}"
                yield from _handler(lifecycle[hook], hook_where, _HOOK_HANDLERS, grace)
    for kind in ("livenessProbe", "readinessProbe", "startupProbe"):
        probe = container.get(kind)
        if is_mapping(probe):
            yield from _probe(probe, f"{where}.{kind}", kind)


_PROBE_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
_HOOK_HANDLERS = ("exec", "httpGet", "tcpSocket", "sleep")
_PROBE_COUNTS = (
    "initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold",
    "failureThreshold",
)  # fmt: skip
_SCHEMES = ("HTTP", "HTTPS")  # sets.List: sorted
_HEADER_NAME = re.compile("[-A-Za-z0-9]+")
_HEADER_ERROR = regex_error(
    "a valid HTTP header must consist of alphanumeric characters or '-'",
    "[-A-Za-z0-9]+",
    "X-Header-Name",
)


def _probe(probe: Mapping[str, Any], where: str, kind: str) -> Errors:
    """validateProbe, then the liveness, readiness or startup probe's own rule."""
    yield from _handler(probe, where, _PROBE_HANDLERS)
    for name in _PROBE_COUNTS:
        yield from _non_negative(probe, name, where)
    grace = _int(probe.get("terminationGracePeriodSeconds"))
    written = probe.get("terminationGracePeriodSeconds") is not None and grace is not None
    field = f"{where}.terminationGracePeriodSeconds"
    if written and (grace or 0) <= 0:
        yield FieldError(field, INVALID, str(grace), "must be greater than 0")
    if kind == "readinessProbe" and written:
        yield FieldError(field, INVALID, str(grace), "must not be set for readinessProbes")
    successes = _int(probe.get("successThreshold"))
    if kind != "readinessProbe" and successes is not None and (successes or 1) != 1:
        yield FieldError(f"{where}.successThreshold", INVALID, str(successes), "must be 1")


def _handler(
    handler: Mapping[str, Any], where: str, kinds: tuple[str, ...], grace: int | None = None
) -> Errors:
    """validateHandler: exactly one handler of ``kinds``, in its order, each validated."""
    found = 0
    for kind in kinds:
        action = handler.get(kind)
        if action is None:
            continue
        if found:
            detail = "may not specify more than 1 handler type"
            yield FieldError(f"{where}.{kind}", FORBIDDEN, None, detail)
            continue
        found += 1
        yield from _action(kind, mapping(action), f"{where}.{kind}", grace)
    if not found:
        yield FieldError(where, REQUIRED, None, "must specify a handler type")


def _action(kind: str, action: Mapping[str, Any], where: str, grace: int | None) -> Errors:
    if kind == "sleep":
        seconds = _int(action.get("seconds"))
        if seconds is not None and grace is not None and not 0 <= seconds <= grace:
            detail = f"must be non-negative and less than terminationGracePeriodSeconds ({grace})"
            yield FieldError(where, INVALID, str(seconds), detail)
    elif kind == "exec" and not as_list(action.get("command")):
        yield FieldError(f"{where}.command", REQUIRED)
    elif kind == "httpGet":
        yield from _port_number_or_name(action.get("port"), f"{where}.port")
        scheme = _text(action.get("scheme"))
        if scheme and scheme not in _SCHEMES:
            yield not_supported(f"{where}.scheme", scheme, _SCHEMES)
        for header in as_list(action.get("httpHeaders")):
            name = _text(mapping(header).get("name"))
            if name is not None and not _HEADER_NAME.fullmatch(name):
                yield invalid(f"{where}.httpHeaders", name, _HEADER_ERROR)
    elif kind in ("tcpSocket", "grpc"):
        yield from _port_number_or_name(action.get("port"), f"{where}.port")


def _port_number_or_name(port: object, where: str) -> Errors:
    """ValidatePortNumOrName of an IntOrString port (a gRPC port is a number)."""
    if isinstance(port, bool):
        return
    if isinstance(port, int) or port is None:
        number = port or 0
        if port_number_error(number):
            yield FieldError(where, INVALID, str(number), _PORT_RANGE)
    elif isinstance(port, str):
        yield from _each(where, port, port_name_errors(port))


# --- Env, resize policy and security contexts (validateContainerCommon) -------------------

_ENV_NAME_ERROR = (
    "a valid environment variable name must consist only of printable ASCII characters other "
    "than '='"
)
_RELAXED_ENV_NAME = re.compile("[ -<>-~]*")  # printable ASCII (space to ~) but "="
_ENV_FIELD_PATHS = (
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
    "spec.nodeName",
    "spec.serviceAccountName",
    "status.hostIP",
    "status.hostIPs",
    "status.podIP",
    "status.podIPs",
)  # sets.List(validEnvDownwardAPIFieldPathExpressions): sorted
_ENV_SOURCES = ("fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef")
_CONFIG_KEY_FMT = "[-._a-zA-Z0-9]+"
_CONFIG_KEY = re.compile(_CONFIG_KEY_FMT)
_CONFIG_KEY_ERROR = regex_error(
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
    _CONFIG_KEY_FMT,
    "key.name",
    "KEY_NAME",
    "key-name",
)
_ONE_AT_A_TIME = "may not have more than one field specified at a time"


def env_var_name_errors(value: str) -> list[str]:
    """IsRelaxedEnvVarName, the rule ValidateEnv and ValidateEnvFrom follow in v1.34
    (RelaxedEnvironmentVariableValidation is GA and locked on): printable ASCII but ``=``."""
    errors = [f"environment variable name {EMPTY_ERROR}"] if not value else []
    if not _RELAXED_ENV_NAME.fullmatch(value):
        errors.append(_ENV_NAME_ERROR)
    return errors


def config_map_key_errors(value: str) -> list[str]:
    """IsConfigMapKey: at most 253 characters of ``[-._a-zA-Z0-9]``, not ``.`` or ``..``
    nor starting ``..`` (hasChDirPrefix)."""
    errors = [max_len_error(253)] if len(value) > 253 else []
    if not _CONFIG_KEY.fullmatch(value):
        errors.append(_CONFIG_KEY_ERROR)
    if value in (".", ".."):
        errors.append(f"must not be '{value}'")
    elif value.startswith(".."):
        errors.append("must not start with '..'")
    return errors


def masked_prefix(prefix: str) -> str:
    """maskTrailingDash, which a name prefix is checked through: a trailing dash (and the
    character before it) stand as ``a``."""
    return prefix[:-2] + "a" if len(prefix) > 1 and prefix.endswith("-") else prefix


def env(items: list[Any], field: str) -> Errors:
    """ValidateEnv: each variable named (IsRelaxedEnvVarName), then its valueFrom
    (validateEnvVarValueFrom): one source of fieldRef (a pod field an environment variable
    may show), resourceFieldRef, configMapKeyRef and secretKeyRef, each valid, and no
    ``value`` beside it. A valueFrom naming a fileKeyRef is passed over: the EnvFiles gate
    is off by default in v1.34."""
    for i, raw in enumerate(items):
        var = mapping(raw)
        name = _text(var.get("name"))
        if name == "":
            yield FieldError(f"{field}[{i}].name", REQUIRED)
        elif name is not None and not _RELAXED_ENV_NAME.fullmatch(name):
            # the valid ones, nearly all, cost one match: a name neither empty nor matched
            # is all env_var_name_errors refuses
            yield from _each(f"{field}[{i}].name", name, env_var_name_errors(name))
        source = var.get("valueFrom")
        if is_mapping(source) and source.get("fileKeyRef") is None:
            yield from _env_source(source, _text(var.get("value")), f"{field}[{i}].valueFrom")


def _env_source(source: Mapping[str, Any], value: str | None, where: str) -> Errors:
    found = [key for key in _ENV_SOURCES if source.get(key) is not None]
    for key in found:
        selector, at = mapping(source[key]), f"{where}.{key}"
        if key == "fieldRef":
            yield from _object_field(selector, at, _ENV_FIELD_PATHS)
        elif key == "resourceFieldRef":
            yield from _resource_field(selector, at, volume=False)
        else:
            yield from _key_selector(selector, at)
    if not found:
        detail = (
            "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or "
            "`secretKeyRef`"
        )
        yield invalid(where, "", detail)
    elif value:
        yield invalid(where, "", "may not be specified when `value` is not empty")
    elif len(found) > 1:
        yield invalid(where, "", _ONE_AT_A_TIME)


def _key_selector(selector: Mapping[str, Any], where: str) -> Errors:
    """validateConfigMapKeySelector and validateSecretKeySelector: the object's name a DNS
    subdomain (empty too is invalid, not missing), the key required and a config key."""
    name = _text(selector.get("name"))
    if name is not None:
        yield from _each(f"{where}.name", name, dns1123_subdomain_errors(name))
    key = _text(selector.get("key"))
    if key == "":
        yield FieldError(f"{where}.key", REQUIRED)
    elif key is not None:
        yield from _each(f"{where}.key", key, config_map_key_errors(key))


def env_from(items: list[Any], field: str) -> Errors:
    """ValidateEnvFrom: a prefix named as a variable is, then exactly one of configMapRef
    and secretRef (that error at the list's own path), its name required and a DNS
    subdomain once a trailing dash is masked (ValidateConfigMapName, ValidateSecretName
    with prefix true)."""
    for i, raw in enumerate(items):
        source = mapping(raw)
        where = f"{field}[{i}]"
        prefix = _text(source.get("prefix"))
        if prefix:
            yield from _each(f"{where}.prefix", prefix, env_var_name_errors(prefix))
        found = [key for key in ("configMapRef", "secretRef") if source.get(key) is not None]
        for key in found:
            name = _text(mapping(source[key]).get("name"))
            if name == "":
                yield FieldError(f"{where}.{key}.name", REQUIRED)
            elif name is not None:
                errors = dns1123_subdomain_errors(masked_prefix(name))
                yield from _each(f"{where}.{key}.name", name, errors)
        if not found:
            yield invalid(field, "", "must specify one of: `configMapRef` or `secretRef`")
        elif len(found) > 1:
            yield invalid(field, "", _ONE_AT_A_TIME)


_RESIZE_RESOURCES = ("cpu", "memory")  # sets.List: sorted
_RESIZE_POLICIES = ("NotRequired", "RestartContainer")  # sets.List: sorted


def resize_policy(policies: list[Any], field: str, restart: str) -> Errors:
    """validateResizePolicy: each resource once and cpu or memory, each policy one of two,
    and NotRequired in a pod whose ``restart`` policy is Never (the named string types
    print marshalled; the missing and unsupported ones at the list's own path)."""
    seen: set[str] = set()
    for i, raw in enumerate(policies):
        entry = mapping(raw)
        name, policy = _text(entry.get("resourceName")), _text(entry.get("restartPolicy"))
        if name is None or policy is None:
            continue
        if name in seen:
            yield FieldError(f"{field}[{i}]", DUPLICATE, json_quote(name))
        seen.add(name)
        if name == "":
            yield FieldError(field, REQUIRED)
        elif name not in _RESIZE_RESOURCES:
            yield not_supported_value(field, json_quote(name), _RESIZE_RESOURCES)
        if policy == "":
            yield FieldError(field, REQUIRED)
        elif policy not in _RESIZE_POLICIES:
            yield not_supported_value(field, json_quote(policy), _RESIZE_POLICIES)
        if restart == "Never" and policy != "NotRequired":
            detail = "must be 'NotRequired' when `restartPolicy` is 'Never'"
            yield FieldError(field, INVALID, json_quote(policy), detail)


_ID_RANGE = f"must be between 0 and {_MAX_INT32}, inclusive"
_PROC_MOUNTS = ("Default", "Unmasked")
_PROFILE_TYPES = ("Localhost", "RuntimeDefault", "Unconfined")
_MAX_APPARMOR_PROFILE = 4095  # PATH_MAX - 1


def _id(context: Mapping[str, Any], key: str, where: str) -> Errors:
    """IsValidUserID and IsValidGroupID of a written id: 0 to 2^31-1."""
    value = _int(context.get(key))
    if context.get(key) is not None and value is not None and not 0 <= value <= _MAX_INT32:
        yield FieldError(f"{where}.{key}", INVALID, str(value), _ID_RANGE)


def security_context(context: Mapping[str, Any], where: str, host_users: bool) -> Errors:
    """ValidateSecurityContext of a container: the user and group ids, the proc mount (an
    unmasked one only without the host's user namespace), the seccomp profile, privilege
    escalation refused while privileged or adding CAP_SYS_ADMIN, the Windows options, the
    AppArmor profile. ``privileged`` itself is the API server's ``--allow-privileged`` to
    refuse."""
    yield from _id(context, "runAsUser", where)
    yield from _id(context, "runAsGroup", where)
    proc_mount = _text(context.get("procMount"))
    if context.get("procMount") is not None and proc_mount is not None:
        if proc_mount not in _PROC_MOUNTS:  # ValidateProcMountType
            yield not_supported_value(f"{where}.procMount", json_quote(proc_mount), _PROC_MOUNTS)
        if host_users and proc_mount == "Unmasked":
            detail = "`hostUsers` must be false to use `Unmasked`"
            yield FieldError(f"{where}.procMount", INVALID, json_quote(proc_mount), detail)
    yield from _seccomp(context.get("seccompProfile"), f"{where}.seccompProfile")
    if context.get("allowPrivilegeEscalation") is False:
        shown = _json_security_context(context)
        if context.get("privileged") is True:
            detail = "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"
            yield FieldError(where, INVALID, shown, detail)
        for added in as_list(mapping(context.get("capabilities")).get("add")):
            if added == "CAP_SYS_ADMIN":
                detail = (
                    "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` "
                    "CAP_SYS_ADMIN"
                )
                yield FieldError(where, INVALID, shown, detail)
    yield from _windows_options(context.get("windowsOptions"), f"{where}.windowsOptions")
    yield from _apparmor(context.get("appArmorProfile"), f"{where}.appArmorProfile")


def pod_security_context(spec: Mapping[str, Any], where: str) -> Errors:
    """validatePodSpecSecurityContext: the fsGroup, user, group and supplemental group ids,
    no shared process namespace with the host's, the sysctls' names (valid, once), the
    fsGroupChangePolicy, the seccomp profile, the Windows options, the AppArmor profile, the
    supplementalGroupsPolicy and the seLinuxChangePolicy."""
    context = mapping(spec.get("securityContext"))  # never nil: SetDefaults_PodSpec
    yield from _id(context, "fsGroup", where)
    yield from _id(context, "runAsUser", where)
    yield from _id(context, "runAsGroup", where)
    for i, group in enumerate(as_list(context.get("supplementalGroups"))):
        value = _int(group)
        if value is not None and not 0 <= value <= _MAX_INT32:
            yield FieldError(f"{where}.supplementalGroups[{i}]", INVALID, str(value), _ID_RANGE)
    if spec.get("shareProcessNamespace") is True and spec.get("hostPID") is True:
        detail = "ShareProcessNamespace and HostPID cannot both be enabled"
        yield FieldError(f"{where}.shareProcessNamespace", INVALID, "true", detail)
    if not context:
        return  # each rule below reads a field of the context, and most pods write none
    yield from _sysctls(as_list(context.get("sysctls")), f"{where}.sysctls", spec)
    change = _text(context.get("fsGroupChangePolicy"))
    if context.get("fsGroupChangePolicy") is not None and change not in (None, *_FS_GROUP_CHANGES):
        field = f"{where}.fsGroupChangePolicy"
        yield not_supported_value(field, json_quote(change or ""), _FS_GROUP_CHANGES)
    yield from _seccomp(context.get("seccompProfile"), f"{where}.seccompProfile")
    yield from _windows_options(context.get("windowsOptions"), f"{where}.windowsOptions")
    yield from _apparmor(context.get("appArmorProfile"), f"{where}.appArmorProfile")
    groups = _text(context.get("supplementalGroupsPolicy"))
    if context.get("supplementalGroupsPolicy") is not None and groups not in (
        None,
        *_GROUPS_POLICIES,
    ):
        field = f"{where}.supplementalGroupsPolicy"
        yield not_supported_value(field, json_quote(groups or ""), _GROUPS_POLICIES)
    change_policy = _text(context.get("seLinuxChangePolicy"))
    if context.get("seLinuxChangePolicy") is not None and change_policy not in (None, "Recursive"):
        # validateSELinuxChangePolicy: AllowOnlyRecursiveSELinuxChangePolicy holds on a create
        # while the SELinuxMount gate is off, its default in v1.34
        field = f"{where}.seLinuxChangePolicy"
        yield not_supported_value(field, json_quote(change_policy or ""), ("Recursive",))


def host_process(item: Mapping[str, Any]) -> bool | None:
    """``securityContext.windowsOptions.hostProcess`` of a pod spec or of a container, when
    written (nil, as upstream's ``*bool``, when not)."""
    value = mapping(mapping(item.get("securityContext")).get("windowsOptions")).get("hostProcess")
    return value if isinstance(value, bool) else None


def windows_host_process_pod(spec: Mapping[str, Any], prefix: str) -> Errors:
    """validateWindowsHostProcessPod: a container's hostProcess, when both it and the pod's
    are written, equals the pod's; a container is a HostProcess one by its own true or, when
    unset, by the pod's; if any is, all are, and the pod is on the host's network. Its last
    rule, HostProcess containers refused when the API server is not run with
    ``--allow-privileged``, is that flag's to apply, as ``privileged`` is."""
    pod = host_process(spec)
    count = host_process_count = 0
    for where, container in every_container(spec, prefix):
        count += 1
        own = host_process(container)
        if pod is not None and own is not None and pod != own:
            detail = (
                "pod hostProcess value must be identical if both are specified, "
                f"was {_json_scalar(pod)}"
            )
            field = f"{where}.securityContext.windowsOptions.hostProcess"
            yield FieldError(field, INVALID, _json_scalar(own), detail)
        if own is True or (own is None and pod is True):
            host_process_count += 1
    if not host_process_count:
        return
    if host_process_count != count:
        detail = (
            "If pod contains any hostProcess containers then all containers must be HostProcess "
            "containers"
        )
        yield FieldError(prefix, INVALID, json_quote(""), detail)
    if spec.get("hostNetwork") is not True:
        detail = "hostNetwork must be true if pod contains any hostProcess containers"
        yield FieldError(f"{prefix}.hostNetwork", INVALID, "false", detail)


def host_users(spec: Mapping[str, Any], prefix: str) -> Errors:
    """validateHostUsers: a pod in a user namespace of its own (``hostUsers: false``) shares
    no network, PID or IPC namespace with the host (the last two reported under upstream's
    capitalised names) and has no volume devices (AllowUserNamespacesWithVolumeDevices only
    holds for a pod that already had them)."""
    if spec.get("hostUsers") is not False:
        return
    detail = "when `hostUsers` is false"
    for key, shown in (
        ("hostNetwork", "hostNetwork"),
        ("hostPID", "HostPID"),
        ("hostIPC", "HostIPC"),
    ):
        if spec.get(key) is True:
            yield FieldError(f"{prefix}.{shown}", FORBIDDEN, None, detail)
    for where, container in every_container(spec, prefix):
        if as_list(container.get("volumeDevices")):
            yield FieldError(f"{where}.volumeDevices", FORBIDDEN, None, detail)


def every_container(
    spec: Mapping[str, Any], prefix: str
) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """VisitContainersWithPath: the init containers, the containers, the ephemeral ones."""
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for i, container in enumerate(containers_of(spec, key)):
            yield f"{prefix}.{key}[{i}]", container


def linux_only(spec: Mapping[str, Any], prefix: str) -> Errors:
    """validateLinux: no Windows options in a linux pod's or its containers' security
    contexts."""
    detail = "windows options cannot be set for a linux pod"
    if mapping(spec.get("securityContext")).get("windowsOptions") is not None:
        yield FieldError(f"{prefix}.securityContext.windowsOptions", FORBIDDEN, None, detail)
    for where, container in every_container(spec, prefix):
        if mapping(container.get("securityContext")).get("windowsOptions") is not None:
            yield FieldError(f"{where}.securityContext.windowsOptions", FORBIDDEN, None, detail)


_WINDOWS_POD_FORBIDS = (
    ("securityContext", "appArmorProfile"), ("securityContext", "seLinuxOptions"),
    ("", "hostUsers"), ("", "hostPID"), ("", "hostIPC"), ("securityContext", "seccompProfile"),
    ("securityContext", "fsGroup"), ("securityContext", "fsGroupChangePolicy"),
    ("securityContext", "sysctls"), ("", "shareProcessNamespace"),
    ("securityContext", "runAsUser"), ("securityContext", "runAsGroup"),
    ("securityContext", "supplementalGroups"), ("securityContext", "supplementalGroupsPolicy"),
    ("securityContext", "seLinuxChangePolicy"),
)  # fmt: skip
"""What validateWindows forbids a windows pod, in its order: the internal
PodSecurityContext's fields, some of them the pod spec's own in v1."""
_WINDOWS_CONTAINER_FORBIDS = (
    "appArmorProfile", "seLinuxOptions", "seccompProfile", "capabilities",
    "readOnlyRootFilesystem", "privileged", "allowPrivilegeEscalation", "procMount",
    "runAsUser", "runAsGroup",
)  # fmt: skip


def windows_only(spec: Mapping[str, Any], prefix: str) -> Errors:
    """validateWindows: none of the Linux-only fields of the pod's security context, or of
    its containers'. A boolean of the pod spec (hostPID, hostIPC) counts when true, the
    sysctls when there are any, any other field when written."""
    detail = "cannot be set for a windows pod"
    context = mapping(spec.get("securityContext"))
    for parent, key in _WINDOWS_POD_FORBIDS:
        value = (context if parent else spec).get(key)
        if key in ("hostPID", "hostIPC"):
            written = value is True
        elif key == "sysctls":
            written = bool(as_list(value))
        else:
            written = value is not None
        if written:
            field = f"{prefix}.{parent}.{key}" if parent else f"{prefix}.{key}"
            yield FieldError(field, FORBIDDEN, None, detail)
    for where, container in every_container(spec, prefix):
        own = mapping(container.get("securityContext"))
        for key in _WINDOWS_CONTAINER_FORBIDS:
            if own.get(key) is not None:
                yield FieldError(f"{where}.securityContext.{key}", FORBIDDEN, None, detail)


_FS_GROUP_CHANGES = ("Always", "OnRootMismatch")  # sets.List: sorted
_GROUPS_POLICIES = ("Merge", "Strict")  # sets.List: sorted
_SYSCTL_SEGMENT = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_SYSCTL_FMT = f"^({_SYSCTL_SEGMENT}[\\./])*{_SYSCTL_SEGMENT}$"
_SYSCTL = re.compile(_SYSCTL_FMT)
_SYSCTL_ERROR = f"must have at most 253 characters and match regex {_SYSCTL_FMT}"


def _sysctls(items: list[Any], field: str, spec: Mapping[str, Any]) -> Errors:
    """validateSysctls: each name required, IsValidSysctlName, and not given before; then
    ValidateHostSysctl (a create never has AllowNamespacedSysctlsForHostNetAndHostIPC): no
    sysctl of the network or IPC namespace the pod shares with the host."""
    names: set[str] = set()
    for i, raw in enumerate(items):
        name = _text(mapping(raw).get("name"))
        if name is None:
            continue
        where = f"{field}[{i}].name"
        if name == "":
            yield FieldError(where, REQUIRED)
        elif len(name) > 253 or not _SYSCTL.match(name):
            yield invalid(where, name, _SYSCTL_ERROR)
        elif name in names:
            yield FieldError(where, DUPLICATE, go_quote(name))
        namespace = sysctl_namespace(name)
        if spec.get("hostNetwork") is True and namespace == "Net":
            yield invalid(where, name, "may not be specified when 'hostNetwork' is true")
        elif spec.get("hostIPC") is True and namespace == "IPC":
            yield invalid(where, name, "may not be specified when 'hostIPC' is true")
        names.add(name)


_IPC_SYSCTLS = frozenset(
    {
        "kernel.sem", "kernel.shmall", "kernel.shmmax", "kernel.shmmni", "kernel.shm_rmid_forced",
        "kernel.shm", "kernel.msgmax", "kernel.msgmnb", "kernel.msgmni", "kernel.msg",
    }
)  # fmt: skip


def sysctl_namespace(name: str) -> str:
    """sysctl.GetNamespace (k8s.io/component-helpers/node/util/sysctl): the kernel namespace
    of a sysctl, its name read with dots (NormalizeName swaps a slash-separated name's
    separators) up to a ``*``: ``Net`` for ``net.*``, ``IPC`` for the IPC ones and
    ``fs.mqueue.*``, else ``""``."""
    first = next((char for char in name if char in "./"), ".")
    if first == "/":
        name = name.translate(str.maketrans("./", "/."))
    name = name.partition("*")[0]
    if name in _IPC_SYSCTLS:
        return "IPC"
    if name.startswith("net."):
        return "Net"
    return "IPC" if name.startswith("fs.mqueue.") else ""


def _seccomp(raw: object, where: str) -> Errors:
    """validateSeccompProfileField: a type (validateSeccompProfileType), and a localhost
    profile exactly for the Localhost type, a relative path without ``..``."""
    if not is_mapping(raw):
        return
    kind, profile = _text(raw.get("type")), raw.get("localhostProfile")
    if kind is None or (profile is not None and not isinstance(profile, str)):
        return
    if kind == "":
        detail = "type is required when seccompProfile is set"
        yield FieldError(f"{where}.type", REQUIRED, None, detail)
    elif kind not in _PROFILE_TYPES:
        yield not_supported_value(f"{where}.type", json_quote(kind), _PROFILE_TYPES)
    if kind == "Localhost":
        if profile is None:
            detail = "must be set when seccomp type is Localhost"
            yield FieldError(f"{where}.localhostProfile", REQUIRED, None, detail)
        else:
            yield from local_path(profile, f"{where}.localhostProfile")
    elif profile is not None:
        shown = f'{{"Type":{json_quote(kind)},"LocalhostProfile":{json_quote(profile)}}}'
        detail = "can only be set when seccomp type is Localhost"
        yield FieldError(f"{where}.localhostProfile", INVALID, shown, detail)


_GMSA_SPEC_KIB = 64
_CONTROL = re.compile("[\x00-\x1f\x7f]")  # [[:cntrl:]], ASCII only in RE2
_NETBIOS_DOMAIN = re.compile(r'[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}')
_DNS_LABEL_ANY_CASE = "[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
_DNS_DOMAIN = re.compile(f"{_DNS_LABEL_ANY_CASE}(?:\\.{_DNS_LABEL_ANY_CASE})*")
_USER_NAME_CHARS = re.compile(r'["/\\:;|=,+*?<>@\[\]]')
_DOTS_OR_SPACES = re.compile("[. ]+")


def _windows_options(raw: object, where: str) -> Errors:
    """validateWindowsSecurityContextOptions: a credential spec resource's name a DNS
    subdomain, a credential spec neither empty nor over 64 KiB, a user name
    (``[DOMAIN\\]USER``) without control characters, a NetBIOS or DNS domain under 256
    bytes, a user of 1 to 104 bytes, not only dots or spaces, without ``"/\\:;|=,+*?<>@[]``
    (each value printed marshalled, as a pointer is)."""
    if not is_mapping(raw):
        return
    spec_name = _text(raw.get("gmsaCredentialSpecName"))
    if raw.get("gmsaCredentialSpecName") is not None and spec_name is not None:
        field = f"{where}.gmsaCredentialSpecName"
        for message in dns1123_subdomain_errors(spec_name):
            yield FieldError(field, INVALID, json_quote(spec_name), message)
    credential = _text(raw.get("gmsaCredentialSpec"))
    if raw.get("gmsaCredentialSpec") is not None and credential is not None:
        field, shown = f"{where}.gmsaCredentialSpec", json_quote(credential)
        if not credential:
            detail = "gmsaCredentialSpec cannot be an empty string"
            yield FieldError(field, INVALID, shown, detail)
        elif len(credential.encode()) > _GMSA_SPEC_KIB * 1024:
            detail = f"gmsaCredentialSpec size must be under {_GMSA_SPEC_KIB} KiB"
            yield FieldError(field, INVALID, shown, detail)
    user_name = _text(raw.get("runAsUserName"))
    if raw.get("runAsUserName") is not None and user_name is not None:
        field, shown = f"{where}.runAsUserName", json_quote(user_name)
        for detail in _run_as_user_name_errors(user_name):
            yield FieldError(field, INVALID, shown, detail)


def _run_as_user_name_errors(name: str) -> list[str]:
    if not name:
        return ["runAsUserName cannot be an empty string"]
    if _CONTROL.search(name):
        return ["runAsUserName cannot contain control characters"]
    parts = name.split("\\")
    if len(parts) > 2:
        return ["runAsUserName cannot contain more than one backslash"]
    domain, user = ("", parts[0]) if len(parts) == 1 else (parts[0], parts[1])
    errors = []
    if len(domain.encode()) >= 256:
        errors.append("runAsUserName's Domain length must be under 256 characters")
    if len(parts) == 2 and not (_NETBIOS_DOMAIN.fullmatch(domain) or _DNS_DOMAIN.fullmatch(domain)):
        errors.append("runAsUserName's Domain doesn't match the NetBios nor the DNS format")
    if not user:
        errors.append("runAsUserName's User cannot be empty")
    elif len(user.encode()) > 104:
        errors.append("runAsUserName's User length must not be longer than 104 characters")
    if _DOTS_OR_SPACES.fullmatch(user):
        errors.append("runAsUserName's User cannot contain only periods or spaces")
    if _USER_NAME_CHARS.search(user):
        errors.append(
            "runAsUserName's User cannot contain the following characters: \"/\\:;|=,+*?<>@[]"
        )
    return errors


def _apparmor(raw: object, where: str) -> Errors:
    """ValidateAppArmorProfileField: a type, and a localhost profile exactly for the
    Localhost type, unpadded, not empty and at most 4095 bytes."""
    if not is_mapping(raw):
        return
    kind, profile = _text(raw.get("type")), raw.get("localhostProfile")
    if kind is None or (profile is not None and not isinstance(profile, str)):
        return
    field = f"{where}.localhostProfile"
    if kind == "Localhost":
        missing = "must be set when AppArmor type is Localhost"
        if profile is None:
            yield FieldError(field, REQUIRED, None, missing)
        else:
            if profile.strip(_GO_SPACE) != profile:
                yield invalid(field, profile, "must not be padded with whitespace")
            elif profile == "":
                yield FieldError(field, REQUIRED, None, missing)
            if len(profile.encode()) > _MAX_APPARMOR_PROFILE:
                detail = f"may not be more than {_MAX_APPARMOR_PROFILE} bytes"
                yield FieldError(field, TOO_LONG, None, detail)
    elif kind in _PROFILE_TYPES:
        if profile is not None:
            detail = "can only be set when AppArmor type is Localhost"
            yield FieldError(field, INVALID, json_quote(profile), detail)
    elif kind == "":
        detail = "type is required when appArmorProfile is set"
        yield FieldError(f"{where}.type", REQUIRED, None, detail)
    else:
        yield not_supported_value(f"{where}.type", json_quote(kind), _PROFILE_TYPES)


def _json_security_context(context: Mapping[str, Any]) -> str:
    """json.Marshal of the internal ``core.SecurityContext``, which ErrorBody prints it with:
    every field in its order under its Go name, a nil one ``null``."""
    capabilities = context.get("capabilities")
    fields = [
        ("Capabilities", _json_struct(capabilities, ("Add", "Drop"))),
        ("Privileged", _json_scalar(context.get("privileged"))),
        ("SELinuxOptions", _json_struct(context.get("seLinuxOptions"), _SELINUX, empty="")),
        ("WindowsOptions", _json_struct(context.get("windowsOptions"), _WINDOWS)),
        *((name, _json_scalar(context.get(_lower_first(name)))) for name in _SCALARS),
        ("SeccompProfile", _json_struct(context.get("seccompProfile"), _PROFILE, empty="")),
        ("AppArmorProfile", _json_struct(context.get("appArmorProfile"), _PROFILE, empty="")),
    ]
    return "{" + ",".join(f'"{name}":{shown}' for name, shown in fields) + "}"


_SELINUX = ("User", "Role", "Type", "Level")
_WINDOWS = ("GMSACredentialSpecName", "GMSACredentialSpec", "RunAsUserName", "HostProcess")
_SCALARS = (
    "RunAsUser", "RunAsGroup", "RunAsNonRoot", "ReadOnlyRootFilesystem",
    "AllowPrivilegeEscalation", "ProcMount",
)  # fmt: skip
_PROFILE = ("Type", "LocalhostProfile")


def _lower_first(name: str) -> str:
    """A v1 field's JSON name from its Go name (``GMSACredentialSpec`` is ``gmsa...``)."""
    if name.startswith("GMSA"):
        return "gmsa" + name[4:]
    return name[0].lower() + name[1:]


def _json_struct(raw: object, names: tuple[str, ...], empty: str | None = None) -> str:
    """A nested struct marshalled: null when absent; a string field that is no pointer
    (``empty`` given) ``""`` when unset, a pointer or slice field null."""
    if not is_mapping(raw):
        return "null"
    shown = []
    for name in names:
        value = raw.get(_lower_first(name))
        if value is None and empty is not None and name != "LocalhostProfile":
            shown.append(f'"{name}":{json_quote(empty)}')
        else:
            shown.append(f'"{name}":{_json_scalar(value)}')
    return "{" + ",".join(shown) + "}"


def _json_scalar(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json_quote(value)
    if isinstance(value, list):
        return "[" + ",".join(_json_scalar(v) for v in value) + "]"
    return "null"


def container_ports(ports: list[Any], field: str) -> Errors:
    """validateContainerPorts: names (IANA service names, unique), containerPort required
    and 1-65535, hostPort 0-65535, protocol TCP, UDP or SCTP (TCP when unset)."""
    names: set[str] = set()
    for i, raw in enumerate(ports):
        port = mapping(raw)
        where = f"{field}[{i}]"
        name = _text(port.get("name"))
        if name:
            messages = port_name_errors(name)
            if messages:
                yield from _each(f"{where}.name", name, messages)
            elif name in names:
                yield FieldError(f"{where}.name", DUPLICATE, go_quote(name))
            else:
                names.add(name)
        number = _int(port.get("containerPort"))
        if number == 0:
            yield FieldError(f"{where}.containerPort", REQUIRED)
        elif number is not None and port_number_error(number):
            yield FieldError(f"{where}.containerPort", INVALID, str(number), _PORT_RANGE)
        host = _int(port.get("hostPort"))
        if host and port_number_error(host):
            yield FieldError(f"{where}.hostPort", INVALID, str(host), _PORT_RANGE)
        protocol = _text(port.get("protocol"))
        if protocol and protocol not in PROTOCOLS:
            yield not_supported(f"{where}.protocol", protocol, PROTOCOLS)


_PORT_RANGE = "must be between 1 and 65535, inclusive"


def host_port_conflicts(items: list[Mapping[str, Any]], field: str) -> Errors:
    """AccumulateUniqueHostPorts: ``protocol/hostIP/hostPort`` once in the list."""
    seen: set[str] = set()
    for ci, container in enumerate(items):
        for pi, raw in enumerate(as_list(container.get("ports"))):
            port = mapping(raw)
            number = _int(port.get("hostPort"))
            if not number:
                continue
            protocol = _text(port.get("protocol")) or "TCP"
            key = f"{protocol}/{_text(port.get('hostIP')) or ''}/{number}"
            if key in seen:
                yield FieldError(f"{field}[{ci}].ports[{pi}].hostPort", DUPLICATE, go_quote(key))
            seen.add(key)


def host_network_ports(spec: Mapping[str, Any], prefix: str) -> Errors:
    """validatePodHostNetworkDeps: with ``hostNetwork`` a set hostPort equals containerPort
    (0 is left for the pod's defaulting)."""
    if spec.get("hostNetwork") is not True:
        return
    for i, container in enumerate(containers_of(spec, "containers")):
        for pi, raw in enumerate(as_list(container.get("ports"))):
            port = mapping(raw)
            host, number = _int(port.get("hostPort")), _int(port.get("containerPort"))
            if host and number is not None and host != number:
                where = f"{prefix}.containers[{i}].ports[{pi}].hostPort"
                detail = "must match `containerPort` when `hostNetwork` is true"
                yield FieldError(where, INVALID, str(host), detail)


# --- Resources (validateResourceRequirements and the resource-name helpers) ---------------

STANDARD_RESOURCES = frozenset(
    {
        "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
        "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage",
        "pods", "services", "replicationcontrollers", "resourcequotas", "secrets",
        "persistentvolumeclaims", "storage", "requests.storage", "configmaps",
        "services.nodeports", "services.loadbalancers",
    }
)  # fmt: skip
"""pkg/apis/core/helper standardResources (IsStandardResourceName)."""
_CONTAINER_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})
_INTEGER_RESOURCES = frozenset(
    {"pods", "services", "replicationcontrollers", "resourcequotas", "secrets", "configmaps",
     "persistentvolumeclaims", "services.nodeports", "services.loadbalancers"}
)  # fmt: skip
"""standardIntegerResources (IsIntegerResourceName, with the extended resources)."""


def is_standard_resource(name: str) -> bool:
    """IsStandardResourceName: the standard names and IsQuotaHugePageResourceName."""
    return name in STANDARD_RESOURCES or name.startswith((HUGEPAGES, "requests." + HUGEPAGES))


def is_integer_resource(name: str) -> bool:
    """IsIntegerResourceName: the standard integer resources and the extended ones."""
    return name in _INTEGER_RESOURCES or is_extended(name)


def any_resource_name(name: str, field: str) -> Errors:
    """validateResourceName: a qualified name, and a standard one when it has no prefix.
    The name is a ResourceName, not a string, so ErrorBody prints it as json.Marshal does."""
    messages = qualified_name_errors(name)
    if messages:
        shown = json_quote(name)
        for message in messages:
            yield FieldError(field, INVALID, shown, message)
        return
    if "/" not in name and not is_standard_resource(name):
        detail = "must be a standard resource type or fully qualified"
        yield FieldError(field, INVALID, json_quote(name), detail)


def resource_name(name: str, field: str, pod_level: bool) -> Errors:
    """:func:`any_resource_name`, then validateContainerResourceName for a container's (which
    goes on after its errors) or validatePodResourceName for the pod's (which does not)."""
    if not pod_level and name in _CONTAINER_RESOURCES:
        # Nearly every name a container writes, and one no rule below can refuse: a qualified
        # name without a prefix (IsQualifiedName), a standard resource (STANDARD_RESOURCES),
        # and a standard one for containers (_CONTAINER_RESOURCES).
        return
    found = list(any_resource_name(name, field))
    yield from found
    unqualified = "/" not in name
    if pod_level and found:
        return
    if pod_level:
        if not pod_level_resource(name):
            detail = "supported values: " + ", ".join(go_quote(s) for s in _POD_LEVEL_SUPPORTED)
            yield FieldError(field, UNSUPPORTED, json_quote(name), detail)
        return
    if unqualified:
        if name not in _CONTAINER_RESOURCES and not name.startswith(HUGEPAGES):
            detail = "must be a standard resource for containers"
            yield FieldError(field, INVALID, json_quote(name), detail)
    elif not is_native(name) and not is_extended(name):
        detail = "doesn't follow extended resource name standard"
        yield FieldError(field, INVALID, json_quote(name), detail)


_POD_LEVEL_SUPPORTED = ("cpu", HUGEPAGES, "memory")
"""sets.List(SupportedPodLevelResources()): cpu, memory and the hugepages prefix, sorted."""


_JSON_ESCAPED = re.compile(r'[\x00-\x1f"\\<>&\u2028\u2029]')
"""The characters :func:`json_quote` writes otherwise than as themselves."""


def json_quote(text: str) -> str:
    """json.Marshal of a string, which ErrorBody prints a value of a named string type
    with: HTML's ``<``, ``>`` and ``&`` and the line separators escaped as ``\\u`` codes."""
    if not _JSON_ESCAPED.search(text):
        # What json.dumps would write: it escapes only a quote, a backslash and a control
        # character, and none of these nor the characters below is in the text.
        return f'"{text}"'
    quoted = json.dumps(text, ensure_ascii=False)
    for char in "<>&\u2028\u2029":
        quoted = quoted.replace(char, f"\\u{ord(char):04x}")
    return quoted


def _quantity(raw: object) -> Fraction | None:
    """The value of a quantity (None for one the quantity check refuses first)."""
    try:
        return parse_quantity(raw)
    except QuantityError:
        return None


def _stored(raw: object) -> Fraction | None:
    """A resource list's quantity as the API server validates it (:func:`to_milli`)."""
    value = _quantity(raw)
    return None if value is None else to_milli(value)


def to_milli(value: Fraction) -> Fraction:
    """SetDefaults_ResourceList: a quantity rounded up (away from zero) to a whole number
    of thousandths, as the API server stores it before it validates it."""
    if 1000 % value.denominator == 0:
        # Already whole thousandths, nearly every quantity written: the fraction is in
        # lowest terms, so value * 1000 is whole exactly when its denominator divides 1000.
        return value
    thousandths = value * 1000
    steps = math.ceil(thousandths) if value > 0 else math.floor(thousandths)
    return Fraction(steps, 1000)


def _shown(value: Fraction, raw: object) -> str:
    """Quantity.String() of a quantity as written: only wanted for a message."""
    return go_quantity_text(value, quantity_format(raw))


def _hugepage_divisible(name: str, value: Fraction) -> bool:
    """IsHugePageResourceValueDivisible: the value a whole multiple of a page size that is
    itself whole."""
    size = _quantity(name[len(HUGEPAGES) :]) or Fraction(0)
    if size <= 0 or size.denominator != 1:
        return False
    return -(-value.numerator // value.denominator) % size.numerator == 0


def resource_requirements(resources: Mapping[str, Any], field: str, pod_level: bool) -> Errors:
    """validateResourceRequirements: names, integer extended resources, hugepage sizes,
    requests within limits (equal for resources not overcommitted, whose limit is then
    required), and hugepages only beside cpu or memory."""
    limits, requests = mapping(resources.get("limits")), mapping(resources.get("requests"))
    read_limits: dict[str, tuple[Fraction, object]] = {}
    for name, raw in limits.items():
        key = str(name)
        yield from resource_name(key, f"{field}.limits[{key}]", pod_level)
        value = _stored(raw)
        if value is None:
            continue
        read_limits[key] = (value, raw)
        yield from _quantity_value(key, value, raw, f"{field}.limits[{key}]")
    for name, raw in requests.items():
        key = str(name)
        where = f"{field}.requests[{key}]"
        yield from resource_name(key, where, pod_level)
        value = _stored(raw)
        if value is None:
            continue
        yield from _quantity_value(key, value, raw, where)
        if key in read_limits:
            limit, written = read_limits[key]
            if value != limit and not overcommit_allowed(key):
                detail = f"must be equal to {key} limit of {_shown(limit, written)}"
                yield invalid(f"{field}.requests", _shown(value, raw), detail)
            elif value > limit:
                detail = f"must be less than or equal to {key} limit of {_shown(limit, written)}"
                yield invalid(f"{field}.requests", _shown(value, raw), detail)
        elif not overcommit_allowed(key):
            detail = "Limit must be set for non overcommitable resources"
            yield FieldError(f"{field}.limits", REQUIRED, None, detail)
    names = {str(n) for n in limits} | {str(n) for n in requests}
    if any(n.startswith(HUGEPAGES) for n in names) and not names & {"cpu", "memory"}:
        yield FieldError(field, FORBIDDEN, None, "HugePages require cpu or memory")


def pod_claim_names(spec: Mapping[str, Any]) -> set[str]:
    """gatherPodResourceClaimNames: the pod's resource claims' names, but empty ones."""
    return {n for c in as_list(spec.get("resourceClaims")) if (n := _str(mapping(c).get("name")))}


def pod_resource_claims(claims: list[Any], field: str) -> Errors:
    """validatePodResourceClaims (for a template, or a pod that is no mirror pod): each
    claim named, once, with a DNS label, and exactly one of resourceClaimName and
    resourceClaimTemplateName, a DNS subdomain (the claim shown as its internal struct)."""
    names: set[str] = set()
    for i, claim in enumerate(mapping(c) for c in claims):
        where = f"{field}[{i}]"
        name = _str(claim.get("name"))
        if not name:
            yield FieldError(f"{where}.name", REQUIRED)
        elif name in names:
            yield FieldError(f"{where}.name", DUPLICATE, go_quote(name))
        else:
            yield from _each(f"{where}.name", name, dns1123_label_errors(name))
            names.add(name)
        claim_name, template_name = (
            claim.get("resourceClaimName"),
            claim.get("resourceClaimTemplateName"),
        )
        if claim_name is not None and template_name is not None:
            detail = (
                "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"
            )
            yield FieldError(where, INVALID, _json_pod_claim(claim), detail)
        if claim_name is None and template_name is None:
            detail = "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"
            yield FieldError(where, INVALID, _json_pod_claim(claim), detail)
        for key, value in (
            ("resourceClaimName", claim_name),
            ("resourceClaimTemplateName", template_name),
        ):
            if isinstance(value, str):
                yield from _each(f"{where}.{key}", value, dns1123_subdomain_errors(value))


def _json_pod_claim(claim: Mapping[str, Any]) -> str:
    """json.Marshal of the internal core.PodResourceClaim: Go field names, a nil pointer
    ``null``."""
    shown = [f'"Name":{json_quote(_str(claim.get("name")))}']
    for key in ("resourceClaimName", "resourceClaimTemplateName"):
        shown.append(f'"{key[0].upper()}{key[1:]}":{_json_scalar(claim.get(key))}')
    return "{" + ",".join(shown) + "}"


def resource_claim_names(claims: list[Any], pod_claims: set[str], field: str) -> Errors:
    """validateResourceClaimNames: each claim a container uses named, once (a claim's
    request once, and not beside the whole claim), its request a DNS label, and one of the
    pod's resource claims (``pod_claims``)."""
    used: list[str] = []
    for i, claim in enumerate(mapping(c) for c in claims):
        where = f"{field}[{i}]"
        name, request = _str(claim.get("name")), _str(claim.get("request"))
        if not name:
            yield FieldError(where, REQUIRED)
            continue
        if name in used:  # all the claim's requests already used
            yield FieldError(where, DUPLICATE, go_quote(name))
        else:
            key = name
            if request:
                yield from _each(f"{where}.request", request, dns1123_label_errors(request))
                key += "/" + request
            if key in used:
                yield FieldError(where, DUPLICATE, go_quote(key))
            elif not request and any(k.partition("/")[0] == name for k in used if "/" in k):
                yield FieldError(where, DUPLICATE, go_quote(name))
            used.append(key)
        if name not in pod_claims:
            detail = "must be one of the names in pod.spec.resourceClaims"
            detail += f": {', '.join(sorted(pod_claims))}" if pod_claims else " which is empty"
            yield FieldError(where, NOT_FOUND, go_quote(name), detail)


def _quantity_value(name: str, value: Fraction, raw: object, where: str) -> Errors:
    """ValidateResourceQuantityValue (ValidateNonnegativeQuantity, then a whole number of
    MilliValue, rounded up, for an integer resource), then
    validateResourceQuantityHugePageValue."""
    if value < 0:
        yield invalid(where, _shown(value, raw), NEGATIVE)
    if milli_value(value) % 1000 and is_integer_resource(name):
        yield invalid(where, _shown(value, raw), "must be an integer")
    if name.startswith(HUGEPAGES) and not _hugepage_divisible(name, value):
        shown = _shown(value, raw)
        yield invalid(where, shown, f"{shown} is not positive integer multiple of {name}")


# --- Scheduling fields ----------------------------------------------------------------------

RESTART_POLICIES = ("Always", "OnFailure", "Never")
TOLERATION_OPERATORS = ("Equal", "Exists")
TAINT_EFFECTS = (NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE)  # validateTaintEffect's order
SPREAD_ACTIONS = ("DoNotSchedule", "ScheduleAnyway")  # sets.List: sorted
INCLUSION_POLICIES = ("Honor", "Ignore")  # sets.List: sorted


def tolerations(items: list[Any], field: str) -> Errors:
    """ValidateTolerations."""
    for i, raw in enumerate(items):
        toleration = mapping(raw)
        where = f"{field}[{i}]"
        key, operator = _text(toleration.get("key")), _text(toleration.get("operator"))
        value, effect = _text(toleration.get("value")), _text(toleration.get("effect"))
        if key:
            yield from label_name(key, f"{where}.key")
        if key == "" and operator is not None and operator != "Exists":
            detail = (
                "operator must be Exists when `key` is empty, which means "
                '"match all values and all keys"'
            )
            yield invalid(f"{where}.operator", operator, detail)
        if toleration.get("tolerationSeconds") is not None and effect != "NoExecute":
            detail = "effect must be 'NoExecute' when `tolerationSeconds` is set"
            yield invalid(f"{where}.effect", effect or "", detail)
        if operator in ("Equal", "") and value is not None:
            messages = label_value_errors(value)
            if messages:
                yield invalid(f"{where}.operator", value, ";".join(messages))
        elif operator == "Exists":
            if value:
                detail = "value must be empty when `operator` is 'Exists'"
                yield invalid(f"{where}.operator", value, detail)
        elif operator is not None:
            yield not_supported(f"{where}.operator", operator, TOLERATION_OPERATORS)
        if effect and effect not in TAINT_EFFECTS:  # validateTaintEffect
            yield not_supported(f"{where}.effect", effect, TAINT_EFFECTS)


def node_selector_requirement(
    expression: Mapping[str, Any], field: str, check_values: bool
) -> Errors:
    """ValidateNodeSelectorRequirement: the operator and its number of values, the key, and
    (for required terms) each value as a label value. Gt and Lt want one value; that it
    reads as an integer is the scheduler's affair, not the API server's."""
    operator, values = _operator_and_values(expression)
    if operator in SELECTOR_OPERATORS:
        yield from _set_values(operator, values, field)
    elif operator in ("Gt", "Lt"):
        if len(values) != 1:
            detail = "must be specified single value when `operator` is 'Lt' or 'Gt'"
            yield FieldError(f"{field}.values", REQUIRED, None, detail)
    elif operator is not None:
        yield invalid(f"{field}.operator", operator, BAD_OPERATOR)
    key = _text(expression.get("key"))
    if key is not None:
        yield from label_name(key, f"{field}.key")
    if check_values:
        for i, value in enumerate(values):
            yield from _each(f"{field}.values[{i}]", value, label_value_errors(value))


def node_field_requirement(expression: Mapping[str, Any], field: str) -> Errors:
    """ValidateNodeFieldSelectorRequirement: ``metadata.name`` In or NotIn one node name."""
    operator, values = _operator_and_values(expression)
    if operator in ("In", "NotIn"):
        if len(values) != 1:
            detail = (
                "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"
            )
            yield FieldError(f"{field}.values", REQUIRED, None, detail)
    elif operator is not None:
        yield invalid(f"{field}.operator", operator, BAD_OPERATOR)
    key = _text(expression.get("key"))
    if key is not None and key != "metadata.name":
        yield invalid(f"{field}.key", key, "not a valid field selector key")
    elif key is not None:
        for i, value in enumerate(values):
            yield from _each(f"{field}.values[{i}]", value, dns1123_subdomain_errors(value))


def node_selector_term(term: Mapping[str, Any], field: str, check_values: bool) -> Errors:
    """ValidateNodeSelectorTerm."""
    for j, raw in enumerate(as_list(term.get("matchExpressions"))):
        where = f"{field}.matchExpressions[{j}]"
        yield from node_selector_requirement(mapping(raw), where, check_values)
    for j, raw in enumerate(as_list(term.get("matchFields"))):
        yield from node_field_requirement(mapping(raw), f"{field}.matchFields[{j}]")


def _weight(raw: Mapping[str, Any], field: str) -> Errors:
    weight = _int(raw.get("weight"))
    if weight is not None and not 1 <= weight <= 100:
        yield FieldError(f"{field}.weight", INVALID, str(weight), "must be in the range 1-100")


def node_affinity(affinity: Mapping[str, Any], field: str) -> Errors:
    """validateNodeAffinity: ValidateNodeSelector for the required terms (at least one),
    ValidatePreferredSchedulingTerms (weights 1-100; values not checked) for the preferred."""
    required = affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if is_mapping(required):
        terms_field = f"{field}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
        terms = as_list(required.get("nodeSelectorTerms"))
        if not terms:
            detail = "must have at least one node selector term"
            yield FieldError(terms_field, REQUIRED, None, detail)
        for i, term in enumerate(terms):
            yield from node_selector_term(mapping(term), f"{terms_field}[{i}]", True)
    preferred_field = f"{field}.preferredDuringSchedulingIgnoredDuringExecution"
    for i, raw in enumerate(
        as_list(affinity.get("preferredDuringSchedulingIgnoredDuringExecution"))
    ):
        term = mapping(raw)
        yield from _weight(term, f"{preferred_field}[{i}]")
        preference = mapping(term.get("preference"))
        yield from node_selector_term(preference, f"{preferred_field}[{i}].preference", False)


def pod_affinity_term(term: Mapping[str, Any], field: str) -> Errors:
    """validatePodAffinityTerm: both selectors, the namespaces (DNS labels, reported at
    ``namespace``), matchLabelKeys and mismatchLabelKeys, and the topology key."""
    selector = term.get("labelSelector")
    yield from label_selector(selector, f"{field}.labelSelector")
    yield from label_selector(term.get("namespaceSelector"), f"{field}.namespaceSelector")
    for name in as_list(term.get("namespaces")):
        text = _text(name)
        if text is not None:
            yield from _each(f"{field}.namespace", text, dns1123_label_errors(text))
    yield from label_keys(term, field, selector)
    topology = _text(term.get("topologyKey"))
    if topology == "":
        yield FieldError(f"{field}.topologyKey", REQUIRED, None, "can not be empty")
    if topology is not None:
        yield from label_name(topology, f"{field}.topologyKey")


def label_keys(term: Mapping[str, Any], field: str, selector: object) -> Errors:
    """validateMatchLabelKeysAndMismatchLabelKeys. A key of matchLabelKeys that a selector
    expression repeats after matchLabels named it is reported at the term's own path
    indexed by its place in matchLabelKeys, as upstream does."""
    match = [k for k in (_text(k) for k in as_list(term.get("matchLabelKeys"))) if k is not None]
    mismatch = [
        k for k in (_text(k) for k in as_list(term.get("mismatchLabelKeys"))) if k is not None
    ]
    for name, keys in (("matchLabelKeys", match), ("mismatchLabelKeys", mismatch)):
        if keys and not is_mapping(selector):  # validateLabelKeys
            detail = "must not be specified when labelSelector is not set"
            yield FieldError(f"{field}.{name}", FORBIDDEN, None, detail)
            continue
        for i, key in enumerate(keys):
            yield from label_name(key, f"{field}.{name}[{i}]")
    if is_mapping(selector):
        places = {key: i for i, key in enumerate(match)}
        seen = {str(k) for k in mapping(selector.get("matchLabels"))}
        for raw in as_list(selector.get("matchExpressions")):
            key = _text(mapping(raw).get("key")) or ""
            if key in places and key in seen:
                detail = "exists in both matchLabelKeys and labelSelector"
                yield invalid(f"{field}[{places[key]}]", key, detail)
            seen.add(key)
    mismatched = set(mismatch)
    for i, key in enumerate(match):
        if key in mismatched:
            detail = "exists in both matchLabelKeys and mismatchLabelKeys"
            yield invalid(f"{field}.matchLabelKeys[{i}]", key, detail)


def pod_affinity(affinity: Mapping[str, Any], field: str) -> Errors:
    """validatePodAffinity and validatePodAntiAffinity: the required terms, then the weighted
    ones (weights 1-100)."""
    required = "requiredDuringSchedulingIgnoredDuringExecution"
    for i, term in enumerate(as_list(affinity.get(required))):
        yield from pod_affinity_term(mapping(term), f"{field}.{required}[{i}]")
    preferred = "preferredDuringSchedulingIgnoredDuringExecution"
    for i, raw in enumerate(as_list(affinity.get(preferred))):
        weighted = mapping(raw)
        yield from _weight(weighted, f"{field}.{preferred}[{i}]")
        term = mapping(weighted.get("podAffinityTerm"))
        yield from pod_affinity_term(term, f"{field}.{preferred}[{i}].podAffinityTerm")


def affinity(raw: object, field: str) -> Errors:
    """validateAffinity."""
    found = mapping(raw)
    if is_mapping(found.get("nodeAffinity")):
        yield from node_affinity(found["nodeAffinity"], f"{field}.nodeAffinity")
    for kind in ("podAffinity", "podAntiAffinity"):
        if is_mapping(found.get(kind)):
            yield from pod_affinity(found[kind], f"{field}.{kind}")


def scheduling_gates(items: list[Any], field: str) -> Errors:
    """validateSchedulingGates: each name a qualified name, none twice."""
    seen: set[str] = set()
    for i, raw in enumerate(items):
        name = _text(mapping(raw).get("name"))
        if name is None:
            continue
        yield from label_name(name, f"{field}[{i}]")
        if name in seen:
            yield FieldError(f"{field}[{i}]", DUPLICATE, go_quote(name))
        seen.add(name)


def spread_constraints(items: list[Any], field: str) -> Errors:
    """validateTopologySpreadConstraints."""
    constraints = [mapping(c) for c in items]
    # Upstream compares each constraint with every later one; the last place of each pair
    # says the same in one pass, however many constraints a manifest lists.
    last = {_spread_pair(c): i for i, c in enumerate(constraints)}
    for i, constraint in enumerate(constraints):
        where = f"{field}[{i}]"
        skew = _int(constraint.get("maxSkew"))
        if skew is not None and skew <= 0:  # ValidateMaxSkew
            yield FieldError(f"{where}.maxSkew", INVALID, str(skew), _POSITIVE)
        topology = _text(constraint.get("topologyKey"))
        if topology == "":  # ValidateTopologyKey
            yield FieldError(f"{where}.topologyKey", REQUIRED, None, "can not be empty")
        action = _text(constraint.get("whenUnsatisfiable"))
        if action is not None and action not in SPREAD_ACTIONS:  # ValidateWhenUnsatisfiable
            yield not_supported(f"{where}.whenUnsatisfiable", action, SPREAD_ACTIONS)
        if last[(topology, action)] > i:  # ValidateSpreadConstraintNotRepeat
            shown = go_quote(f"{{{topology}, {action}}}")
            yield FieldError(f"{where}.{{topologyKey, whenUnsatisfiable}}", DUPLICATE, shown)
        yield from _min_domains(constraint.get("minDomains"), action, f"{where}.minDomains")
        for policy in ("nodeAffinityPolicy", "nodeTaintsPolicy"):  # validateNodeInclusionPolicy
            value = _text(constraint.get(policy))
            unset = constraint.get(policy) is None
            if not unset and value is not None and value not in INCLUSION_POLICIES:
                yield not_supported(f"{where}.{policy}", value, INCLUSION_POLICIES)
        # with MatchLabelKeysInPodTopologySpreadSelectorMerge (beta, on from v1.34) a new
        # object's keys are held to the pod affinity terms' rule
        keys = {"matchLabelKeys": constraint.get("matchLabelKeys")}  # it has no mismatchLabelKeys
        yield from label_keys(keys, where, constraint.get("labelSelector"))
        yield from label_selector(constraint.get("labelSelector"), f"{where}.labelSelector")


def _spread_pair(constraint: Mapping[str, Any]) -> tuple[str | None, str | None]:
    return _text(constraint.get("topologyKey")), _text(constraint.get("whenUnsatisfiable"))


def _min_domains(raw: object, action: str | None, field: str) -> Errors:
    """validateMinDomains: positive, and only with DoNotSchedule."""
    if raw is None or _int(raw) is None:
        return
    value = _int(raw)
    if value is not None and value <= 0:
        yield FieldError(field, INVALID, str(value), _POSITIVE)
    if action != "DoNotSchedule":
        detail = f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action}"
        yield FieldError(field, INVALID, str(value), detail)


def _subdomain_field(spec: Mapping[str, Any], name: str, prefix: str) -> Errors:
    value = _text(spec.get(name))
    if value:
        yield from _each(f"{prefix}.{name}", value, dns1123_subdomain_errors(value))


def _service_account(spec: Mapping[str, Any], prefix: str) -> Errors:
    """ValidateServiceAccountName (a DNS subdomain) of the name the v1 conversion keeps:
    ``serviceAccountName``, or the deprecated ``serviceAccount`` when it is empty."""
    name = _text(spec.get("serviceAccountName"))
    if name == "":
        name = _text(spec.get("serviceAccount"))
    if name:
        where = f"{prefix}.serviceAccountName"
        yield from _each(where, name, dns1123_subdomain_errors(name))


# --- The pod template ------------------------------------------------------------------------


def pod_spec(
    spec: Mapping[str, Any],
    prefix: str,
    mounts_known: bool = True,
    pod: str = "",
    *,
    is_pod: bool = False,
) -> Errors:
    """ValidatePodSpec, in its order, for the fields fitgate reads. ``mounts_known``: the
    spec holds every volume its pod will (a StatefulSet's pods also have its claims').
    ``pod``: the pod's name, for a pod whose name is known (:func:`volume_names`)."""
    volumes: set[str] = set()
    yield from volume_names(spec, prefix, volumes, pod, is_pod=is_pod)
    yield from pod_resource_claims(as_list(spec.get("resourceClaims")), f"{prefix}.resourceClaims")
    yield from containers(spec, prefix, volumes if mounts_known else None)
    yield from pod_resources(spec, prefix)
    yield from host_network_ports(spec, prefix)
    policy = _text(spec.get("restartPolicy"))
    if policy and policy not in RESTART_POLICIES:  # validateRestartPolicy; unset is Always
        yield not_supported(f"{prefix}.restartPolicy", policy, RESTART_POLICIES)
    dns = _text(spec.get("dnsPolicy"))
    if dns and dns not in DNS_POLICIES:  # validateDNSPolicy; unset is ClusterFirst
        shown = json_quote(dns)  # a *DNSPolicy, marshalled
        yield not_supported_value(f"{prefix}.dnsPolicy", shown, DNS_POLICIES)
    yield from labels(spec.get("nodeSelector"), f"{prefix}.nodeSelector")
    yield from pod_security_context(spec, f"{prefix}.securityContext")
    yield from affinity(spec.get("affinity"), f"{prefix}.affinity")
    yield from _dns_config(spec, dns, f"{prefix}.dnsConfig")
    for i, gate in enumerate(as_list(spec.get("readinessGates"))):  # validateReadinessGates
        condition = _text(mapping(gate).get("conditionType"))
        if condition is not None:
            yield from label_name(condition, f"{prefix}.readinessGates[{i}].conditionType")
    yield from scheduling_gates(as_list(spec.get("schedulingGates")), f"{prefix}.schedulingGates")
    spread = as_list(spec.get("topologySpreadConstraints"))
    yield from spread_constraints(spread, f"{prefix}.topologySpreadConstraints")
    yield from windows_host_process_pod(spec, prefix)
    yield from host_users(spec, prefix)
    yield from _service_account(spec, prefix)
    yield from _subdomain_field(spec, "nodeName", prefix)
    deadline = _int(spec.get("activeDeadlineSeconds"))
    written = spec.get("activeDeadlineSeconds") is not None and deadline is not None
    if written and not 1 <= (deadline or 0) <= _MAX_INT32:
        detail = f"must be between 1 and {_MAX_INT32}, inclusive"
        yield FieldError(f"{prefix}.activeDeadlineSeconds", INVALID, str(deadline), detail)
    for name in ("hostname", "subdomain"):  # ValidateDNS1123Label
        value = _text(spec.get(name))
        if value:
            yield from _each(f"{prefix}.{name}", value, dns1123_label_errors(value))
    yield from tolerations(as_list(spec.get("tolerations")), f"{prefix}.tolerations")
    yield from host_aliases(as_list(spec.get("hostAliases")), f"{prefix}.hostAliases")
    yield from _subdomain_field(spec, "priorityClassName", prefix)
    runtime = _text(spec.get("runtimeClassName"))
    if spec.get("runtimeClassName") is not None and runtime is not None:  # may be "" and refused
        where = f"{prefix}.runtimeClassName"
        yield from _each(where, runtime, dns1123_subdomain_errors(runtime))
    preemption = _text(spec.get("preemptionPolicy"))
    if spec.get("preemptionPolicy") is not None and preemption is not None:
        yield from preemption_policy(preemption, f"{prefix}.preemptionPolicy")
    if is_mapping(spec.get("overhead")):  # validateOverhead: limits only
        overhead = {"limits": spec["overhead"]}
        yield from resource_requirements(overhead, f"{prefix}.overhead", pod_level=False)
    if is_mapping(spec.get("os")):  # validateOS, then the OS's own rules
        os_name = _text(spec["os"].get("name"))
        if os_name == "":
            yield FieldError(f"{prefix}.os.name", REQUIRED)
        elif os_name is not None and os_name not in OS_NAMES:
            yield not_supported(f"{prefix}.os", os_name, OS_NAMES)
        elif os_name == "linux":
            yield from linux_only(spec, prefix)
        elif os_name == "windows":
            yield from windows_only(spec, prefix)


OS_NAMES = ("linux", "windows")  # sets.List: sorted

DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
_MAX_NAMESERVERS = 3


def _dns_config(spec: Mapping[str, Any], policy: str | None, field: str) -> Errors:
    """validatePodDNSConfig: with ``dnsPolicy: None`` a dnsConfig and a nameserver in it;
    at most three nameservers, each an IP address (:func:`legacy_ip`); at most 32 search
    paths of at most 2048 characters joined by spaces, each, a trailing dot cut, a DNS
    subdomain that may hold ``_`` (RelaxedDNSSearchValidation, locked on in v1.34; ``.``
    alone allowed); each option named."""
    config = spec.get("dnsConfig")
    servers = [_str(n) for n in as_list(mapping(config).get("nameservers"))]
    if policy == "None":
        if config is None:
            detail = "must provide `dnsConfig` when `dnsPolicy` is None"
            yield FieldError(field, REQUIRED, None, detail)
            return
        if not servers:
            detail = "must provide at least one DNS nameserver when `dnsPolicy` is None"
            yield FieldError(f"{field}.nameservers", REQUIRED, None, detail)
            return
    if not is_mapping(config):
        return
    if len(servers) > _MAX_NAMESERVERS:
        detail = f"must not have more than {_MAX_NAMESERVERS} nameservers"
        yield FieldError(f"{field}.nameservers", INVALID, _json_strings(servers), detail)
    for i, server in enumerate(servers):
        yield from legacy_ip(server, f"{field}.nameservers[{i}]")
    searches = [_str(n) for n in as_list(config.get("searches"))]
    if len(searches) > _MAX_SEARCH_PATHS:
        detail = f"must not have more than {_MAX_SEARCH_PATHS} search paths"
        yield FieldError(f"{field}.searches", INVALID, _json_strings(searches), detail)
    if len(" ".join(searches).encode()) > _MAX_SEARCH_CHARS:
        detail = (
            f"must not have more than {_MAX_SEARCH_CHARS} characters (including spaces) in the "
            "search list"
        )
        yield FieldError(f"{field}.searches", INVALID, _json_strings(searches), detail)
    for i, search in enumerate(searches):
        if search != ".":
            search = search.removesuffix(".")
            where = f"{field}.searches[{i}]"
            yield from _each(where, search, dns1123_underscore_subdomain_errors(search))
    for i, option in enumerate(as_list(config.get("options"))):
        if not _text(mapping(option).get("name")):
            yield FieldError(f"{field}.options[{i}]", REQUIRED, None, "must not be empty")


_MAX_SEARCH_PATHS, _MAX_SEARCH_CHARS = 32, 2048  # MaxDNSSearchPaths, MaxDNSSearchListChars


def _json_strings(values: Sequence[str]) -> str:
    """A []string as ErrorBody prints it (json.Marshal)."""
    return "[" + ",".join(map(json_quote, values)) + "]"


def host_aliases(items: list[Any], field: str) -> Errors:
    """ValidateHostAliases: each alias's ip an IP address (:func:`legacy_ip`), then each of
    its hostnames a DNS subdomain."""
    for i, alias in enumerate(mapping(a) for a in items):
        yield from legacy_ip(_str(alias.get("ip")), f"{field}[{i}].ip")
        for j, hostname in enumerate(_str(h) for h in as_list(alias.get("hostnames"))):
            where = f"{field}[{i}].hostnames[{j}]"
            yield from _each(where, hostname, dns1123_subdomain_errors(hostname))


PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")


def preemption_policy(policy: str, field: str) -> Errors:
    """ValidatePreemptionPolicy: a written policy is one of the two (an empty one is a
    required value missing)."""
    if policy == "":
        yield FieldError(field, REQUIRED)
    elif policy not in PREEMPTION_POLICIES:
        yield not_supported(field, policy, PREEMPTION_POLICIES)


def pod_resources(spec: Mapping[str, Any], prefix: str) -> Errors:
    """validatePodResources (PodLevelResources, on from v1.34): none beside a Windows OS,
    no claims, the requirements valid, then consistent with the containers'."""
    resources = spec.get("resources")
    if not is_mapping(resources):
        return
    field = f"{prefix}.resources"
    if mapping(spec.get("os")).get("name") == "windows":
        yield FieldError(field, FORBIDDEN, None, "may not be set for a windows pod")
        return
    if resources.get("claims") is not None:
        detail = "claims may not be set for Resources at pod-level"
        yield FieldError(f"{field}.claims", FORBIDDEN, None, detail)
    yield from resource_requirements(resources, field, pod_level=True)
    claims = as_list(resources.get("claims"))  # then held to the containers' rules as well
    yield from resource_claim_names(claims, pod_claim_names(spec), f"{field}.claims")
    yield from pod_resource_consistency(spec, field)


def pod_resource_consistency(spec: Mapping[str, Any], field: str) -> Errors:
    """validatePodResourceConsistency, ``field`` naming the pod-level resources: each
    pod-level request at least the containers' aggregate request of it
    (AggregateContainerRequests: init containers, sidecars and all), each pod-level
    hugepage limit at least their aggregate limit, and each app container's limit within
    the pod's. Upstream walks maps in no fixed order; the order here is the written one.
    A quantity that does not parse is the decoder's to refuse."""
    try:
        own_requests = resources_of(spec, "requests")
        own_limits = resources_of(spec, "limits")
        requests, limits = aggregate_requests(spec), aggregate_limits(spec)
        app_limits = [resources_of(c, "limits") for c in containers_of(spec, "containers")]
    except QuantityError:
        return
    for name, total in requests.items():
        written = own_requests.get(name)
        if written is not None and total.value > written.value:
            detail = f"must be greater than or equal to aggregate container requests of {total}"
            yield invalid(f"{field}.requests[{name}]", str(written), detail)
    for name, total in limits.items():
        written = own_limits.get(name)
        if name.startswith(HUGEPAGES) and written is not None and total.value > written.value:
            detail = f"must be greater than or equal to aggregate container limits of {total}"
            yield invalid(f"{field}.limits[{name}]", str(written), detail)
    for index, container in enumerate(app_limits):
        for name, limit in container.items():
            written = own_limits.get(name)
            if written is not None and limit.value > written.value:
                detail = f"must be less than or equal to pod limits of {written}"
                yield invalid(f"{field}.containers[{index}][{name}].limits", str(limit), detail)


def template_path(field: str) -> str | None:
    """The pod template a spec at ``field`` belongs to (``spec.template`` for
    ``spec.template.spec``), or None for a Pod's own ``spec``."""
    head, dot, last = field.rpartition(".")
    return head if dot and last == "spec" else None


def pod_template_problem(
    spec: Mapping[str, Any], field: str, template_labels: object = None
) -> str | None:
    """The errors ValidatePodTemplateSpec gives the template whose spec is at ``field``
    (its labels, when given, at ``<template>.labels``), aggregated (:func:`aggregate`), or
    None."""
    return _all(_template(spec, field, template_labels))


def _template(
    spec: Mapping[str, Any], field: str, template_labels: object, notes: object = None
) -> Errors:
    """ValidatePodTemplateSpec: the template's labels and annotations (``notes``), then its
    pod spec, its security profiles' annotations matching their fields
    (:func:`profiles_match`), then no ephemeral containers (only a running pod takes them)."""
    template = template_path(field)
    if template is not None:
        yield from labels(template_labels, f"{template}.labels")
        yield from annotation_map(notes, f"{template}.annotations")
        yield from pod_annotations(notes, spec, f"{template}.annotations")
    yield from pod_spec(spec, field)
    if template is not None:
        yield from profiles_match(notes, spec, field)
    if template is not None and as_list(spec.get("ephemeralContainers")):
        detail = "ephemeral containers not allowed in pod template"
        yield FieldError(f"{field}.ephemeralContainers", FORBIDDEN, None, detail)


ANNOTATIONS_LIMIT = 256 * (1 << 10)
"""TotalAnnotationSizeLimitB: the bytes of every annotation's key and value together."""


def annotation_map(raw: object, field: str) -> Errors:
    """ValidateAnnotations: each key a qualified name whatever its case (reported as
    written), and all of them, keys and values, at most 256 KiB."""
    found = mapping(raw)
    size = 0
    for key, value in found.items():
        text = str(key)
        lowered = text.lower()
        if not label_key_ok(lowered):
            yield from _each(field, text, qualified_name_errors(lowered))
        size += len(text.encode()) + len((_text(value) or "").encode())
    if size > ANNOTATIONS_LIMIT:
        yield FieldError(field, TOO_LONG, None, f"may not be more than {ANNOTATIONS_LIMIT} bytes")


_MIRROR = "kubernetes.io/config.mirror"
_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
_DELETION_COST_TEXT = re.compile("-[0-9]+|0|[1-9][0-9]*")
"""helper.GetDeletionCostFromPodAnnotations: validFirstDigit (no ``+``, no leading zero),
then strconv.ParseInt in base 10."""


def pod_annotations(raw: object, spec: Mapping[str, Any], field: str) -> Errors:
    """ValidatePodSpecificAnnotations, for the annotations that need no other reader: the
    mirror-pod annotation only beside a ``nodeName``, and a pod deletion cost a 32-bit
    integer (PodDeletionCost, on in v1.34)."""
    found = mapping(raw)
    if _MIRROR in found and not _text(spec.get("nodeName")):
        detail = "must set spec.nodeName if mirror pod annotation is set"
        yield FieldError(f"{field}[{_MIRROR}]", INVALID, go_quote(_str(found[_MIRROR])), detail)
    if _DELETION_COST in found:
        cost = _str(found[_DELETION_COST])
        number = int(cost) if _DELETION_COST_TEXT.fullmatch(cost) else None
        if number is None or not -(2**31) <= number < 2**31:
            where = f"{field}[{_DELETION_COST}]"
            yield FieldError(where, INVALID, go_quote(cost), "must be a 32bit integer")
    yield from _profile_annotations(found, spec, field)


SECCOMP_POD_ANNOTATION = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_CONTAINER_ANNOTATION = "container.seccomp.security.alpha.kubernetes.io/"
APPARMOR_ANNOTATION = "container.apparmor.security.beta.kubernetes.io/"
_LOCALHOST = "localhost/"


def _profile_annotations(found: Mapping[str, Any], spec: Mapping[str, Any], field: str) -> Errors:
    """ValidateSeccompPodAnnotations (the pod's annotation, then each container's, named as
    a child of ``field``: ``annotations.seccomp...``), then ValidateAppArmorPodAnnotations
    (each for a container of the pod, init and ephemeral ones too, and of a known profile
    form). Upstream walks the map in no fixed order; the order here is the written one."""
    if not _profile_annotated(found):
        return
    if SECCOMP_POD_ANNOTATION in found:
        value = _str(found[SECCOMP_POD_ANNOTATION])
        yield from seccomp_profile_annotation(value, f"{field}.{SECCOMP_POD_ANNOTATION}")
    for key, value in found.items():
        if str(key).startswith(SECCOMP_CONTAINER_ANNOTATION):
            yield from seccomp_profile_annotation(_str(value), f"{field}.{key}")
    names = {_str(c.get("name")) for c in _visited_containers(spec)}
    for key, value in found.items():
        if not str(key).startswith(APPARMOR_ANNOTATION):
            continue
        container = str(key).removeprefix(APPARMOR_ANNOTATION)
        if container not in names:
            yield invalid(f"{field}[{key}]", container, "container not found")
        profile = _str(value)
        if profile not in ("", "runtime/default", "unconfined") and not profile.startswith(
            _LOCALHOST
        ):
            detail = f"invalid AppArmor profile name: {go_quote(profile)}"
            yield invalid(f"{field}[{key}]", profile, detail)


_PROFILE_ANNOTATIONS = (SECCOMP_POD_ANNOTATION, SECCOMP_CONTAINER_ANNOTATION, APPARMOR_ANNOTATION)


def _profile_annotated(found: Mapping[str, Any]) -> bool:
    """Whether any annotation in ``found`` may name a seccomp or AppArmor profile: each
    check of one (:func:`_profile_annotations`, :func:`profiles_match`) is of a key written
    with one of these prefixes, so without one there is nothing to check."""
    return any(str(key).startswith(_PROFILE_ANNOTATIONS) for key in found)


def seccomp_profile_annotation(value: str, field: str) -> Errors:
    """ValidateSeccompProfile: ``runtime/default``, ``docker/default``, ``unconfined``, or
    ``localhost/`` and a descending path (validateLocalDescendingPath, shown without the
    prefix)."""
    if value in ("runtime/default", "docker/default", "unconfined"):
        return
    if value.startswith(_LOCALHOST):
        yield from descending_path(value.removeprefix(_LOCALHOST), field)
    else:
        yield invalid(field, value, "must be a valid seccomp profile")


def _visited_containers(spec: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """podshelper.VisitContainersWithPath's order (:func:`_visited_paths`)."""
    return (container for _, container in _visited_paths(spec, ""))


def _visited_paths(spec: Mapping[str, Any], prefix: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """podshelper.VisitContainersWithPath: init containers, containers, ephemeral
    containers, each with its field path under ``prefix``."""
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for i, container in enumerate(as_list(spec.get(key))):
            yield f"{prefix}.{key}[{i}]", mapping(container)


def profiles_match(notes: object, spec: Mapping[str, Any], prefix: str) -> Errors:
    """validateSeccompAnnotationsAndFields (the pod's seccomp annotation against its
    seccompProfile, then each container's against its own), then
    validateAppArmorAnnotationsAndFieldsMatchOnCreate (each container's AppArmor annotation
    against its profile, the pod's when it sets none; not for a Windows pod): where both
    are written they name the same profile."""
    found = mapping(notes)
    if not _profile_annotated(found):
        return
    pod_context = mapping(spec.get("securityContext"))
    pod_seccomp = pod_context.get("seccompProfile")
    if is_mapping(pod_seccomp) and SECCOMP_POD_ANNOTATION in found:
        where = f"{prefix}.securityContext.seccompProfile"
        yield from _profile_match(
            "seccomp", _str(found[SECCOMP_POD_ANNOTATION]), pod_seccomp, where
        )
    for path, container in _visited_paths(spec, prefix):
        own = mapping(container.get("securityContext")).get("seccompProfile")
        key = SECCOMP_CONTAINER_ANNOTATION + _str(container.get("name"))
        if is_mapping(own) and key in found:
            where = f"{path}.securityContext.seccompProfile"
            yield from _profile_match("seccomp", _str(found[key]), own, where)
    if mapping(spec.get("os")).get("name") == "windows":
        return
    pod_apparmor = pod_context.get("appArmorProfile")
    for path, container in _visited_paths(spec, prefix):
        profile = mapping(container.get("securityContext")).get("appArmorProfile")
        if not is_mapping(profile):
            profile = pod_apparmor
        key = APPARMOR_ANNOTATION + _str(container.get("name"))
        if is_mapping(profile) and key in found:
            where = f"{path}.securityContext.appArmorProfile"
            yield from _profile_match("apparmor", _str(found[key]), profile, where)


def _profile_match(kind: str, annotation: str, profile: Mapping[str, Any], where: str) -> Errors:
    """validateSeccompAnnotationsAndFieldsMatch and the AppArmor switch of
    validateAppArmorAnnotationsAndFieldsMatchOnCreate: the annotation of the profile's type
    (``docker/default`` a seccomp RuntimeDefault too), a Localhost one naming its profile;
    another type is not compared."""
    defaults = ("runtime/default", "docker/default") if kind == "seccomp" else ("runtime/default",)
    matches = {"Unconfined": annotation == "unconfined", "RuntimeDefault": annotation in defaults}
    matches["Localhost"] = annotation.startswith(_LOCALHOST)
    written = _str(profile.get("type"))
    if written not in matches:
        return
    if not matches[written]:
        detail = f"{kind} type in annotation and field must match"
        yield FieldError(f"{where}.type", FORBIDDEN, None, detail)
    elif written == "Localhost":
        local = profile.get("localhostProfile")
        if not isinstance(local, str) or annotation.removeprefix(_LOCALHOST) != local:
            detail = f"{kind} profile in annotation and field must match"
            yield FieldError(f"{where}.localhostProfile", FORBIDDEN, None, detail)


def apparmor_field_for_annotation(annotation: str) -> dict[str, str] | None:
    """podutil.ApparmorFieldForAnnotation, None for a value that names no profile, and None
    too for a profile ValidateAppArmorProfileField refuses (applyAppArmorVersionSkew skips
    copying it)."""
    profile: dict[str, str] | None = None
    if annotation == "unconfined":
        profile = {"type": "Unconfined"}
    elif annotation == "runtime/default":
        profile = {"type": "RuntimeDefault"}
    elif annotation.startswith(_LOCALHOST):
        profile = {"type": "Localhost", "localhostProfile": annotation.removeprefix(_LOCALHOST)}
    if profile is None or any(_apparmor(profile, "")):
        return None
    return profile


def with_apparmor_fields(
    annotations: Mapping[str, Any], spec: Mapping[str, Any]
) -> Mapping[str, Any]:
    """The pod as the API server stores it before validating it: Kubernetes v1.34's
    pkg/registry/core/pod/strategy.go applyAppArmorVersionSkew copies a container's
    deprecated AppArmor annotation to its ``appArmorProfile`` when it sets none and the
    profile is valid and differs from the pod's (no longer the fields to annotations). A
    Windows pod is left as it is."""
    windows = mapping(spec.get("os")).get("name") == "windows"
    if windows or not any(str(k).startswith(APPARMOR_ANNOTATION) for k in annotations):
        return spec
    pod = mapping(spec.get("securityContext")).get("appArmorProfile")
    synced: dict[str, Any] = dict(spec)
    for key in ("initContainers", "containers", "ephemeralContainers"):
        items = spec.get(key)
        if not isinstance(items, list):
            continue
        copied = []
        for item in items:
            container = mapping(item)
            context = mapping(container.get("securityContext"))
            written = annotations.get(APPARMOR_ANNOTATION + _str(container.get("name")))
            profile = None if written is None else apparmor_field_for_annotation(_str(written))
            if profile is not None and context.get("appArmorProfile") is None and profile != pod:
                item = {**container, "securityContext": {**context, "appArmorProfile": profile}}
            copied.append(item)
        synced[key] = copied
    return synced


def aggregate(messages: Iterable[str]) -> str | None:
    """``ErrorList.ToAggregate().Error()`` (and ``utilerrors.NewAggregate``'s): None for no
    error, one alone as it is, several once each in the order found, as ``[first, second]``
    (apimachinery ``pkg/util/validation/field/errors.go``, ``pkg/util/errors/errors.go``)."""
    unique = list(dict.fromkeys(messages))
    if not unique:
        return None
    return unique[0] if len(unique) == 1 else f"[{', '.join(unique)}]"


def _all(errors: Errors) -> str | None:
    """Every error of a validation, as NewInvalid's message lists them after ``is invalid:``."""
    return aggregate(str(e) for e in errors)


# --- The workloads' own rules ---------------------------------------------------------------

APPS = frozenset({"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"})
_EMPTY_FOR = {"Deployment": "deployment", "ReplicaSet": "deployment", "StatefulSet": "statefulset"}
_EMPTY_FOR["DaemonSet"] = "daemonset"
MISMATCH = "`selector` does not match template `labels`"


def workload_problem(kind: str, body: Mapping[str, Any], spec: Mapping[str, Any]) -> str | None:
    """The errors the API server gives a workload of a built-in kind for its template, the
    controller's rules on its selector and restart policy around ValidatePodTemplateSpec,
    aggregated in upstream's order (:func:`aggregate`). ``spec`` is the template's pod spec
    at the kind's usual path. A CronJob whose time zone the tz database is needed for, when
    it cannot be read, is not judged: that is said in place of any error."""
    try:
        errors = _all(_workload(kind, body, spec))
    except ZonesUnreadable as unknown:
        return str(unknown)
    name = stored_name(mapping(body.get("metadata")))
    if errors is None:
        return _cron_jobs_problem(body, spec, name) if kind == "CronJob" else None
    return invalid_object(kind, name, errors)


def _cron_jobs_problem(cron: Mapping[str, Any], spec: Mapping[str, Any], name: str) -> str | None:
    """The errors of the Job an accepted CronJob's controller creates (cronjob_controllerv2.go
    getJobFromTemplate2: the job template's metadata and spec, named getJobName): the API
    server holds it to every Job's rules, validateGeneratedSelector's among them, which the
    CronJob escapes, so a job template whose pods carry another job-name or controller-uid
    label makes Jobs that are each refused."""
    made = controller_object("CronJob", name)
    if made is None:
        return None
    template = mapping(at(cron, ("spec", "jobTemplate")))
    template_meta = mapping(template.get("metadata"))
    metadata = {"name": made[1], "namespace": at(cron, ("metadata", "namespace"))}
    metadata |= {key: template_meta.get(key) for key in ("labels", "annotations")}
    job = {"metadata": metadata, "spec": template.get("spec")}
    errors = _all(_workload("Job", job, spec))
    if errors is None:
        return None
    return f"every Job CronJob {go_quote(name)} creates is refused: " + invalid_object(
        "Job", made[1], errors
    )


_GROUPS = {kind: "apps" for kind in APPS} | {
    "Job": "batch",
    "CronJob": "batch",
    "PriorityClass": "scheduling.k8s.io",
}
"""The API group of each built-in kind fitgate validates that is not in the core group."""


def invalid_object(kind: str, name: str, errors: str) -> str:
    """apierrors.NewInvalid's message for the object the API server refuses to create:
    its GroupKind (``Deployment.apps``; a core kind's alone, ``Pod``), its name as ``%q``
    quotes it (the generated one, for a ``generateName``), then the errors aggregated."""
    group = _GROUPS.get(kind)
    qualified = f"{kind}.{group}" if group else kind
    return f"{qualified} {go_quote(name)} is invalid: {errors}"


def _workload(kind: str, body: Mapping[str, Any], spec: Mapping[str, Any]) -> Errors:
    if kind == "Pod":
        yield from _pod(body, spec)
        return
    yield from object_meta(body, kind)
    if kind == "PodTemplate":
        template = ("template", "metadata")
        notes = at(body, (*template, "annotations"))
        yield from _template(spec, "template.spec", at(body, (*template, "labels")), notes)
        return
    if kind == "CronJob":
        cron = mapping(body.get("spec"))
        yield from _cron_schedule(cron)
        yield from _job(
            mapping(at(body, ("spec", "jobTemplate", "spec"))), "spec.jobTemplate.spec", spec
        )
        yield from _non_negative(cron, "successfulJobsHistoryLimit", "spec")
        yield from _non_negative(cron, "failedJobsHistoryLimit", "spec")
        name = stored_name(mapping(body.get("metadata")))
        if len(name) > _CRON_JOB_NAME:  # ValidateCronJobCreate: its Jobs take 11 more
            detail = f"must be no more than {_CRON_JOB_NAME} characters"
            yield invalid("metadata.name", name, detail)
        return
    template_labels = at(body, ("spec", "template", "metadata", "labels"))
    if kind == "Job":
        name = stored_name(mapping(body.get("metadata")))
        yield from _generated_selector(mapping(body.get("spec")), name)
        yield from _job(mapping(body.get("spec")), "spec", spec, name)
        yield from _indexed_hostnames(body)
    elif kind in APPS:
        yield from _apps(kind, mapping(body.get("spec")), spec, template_labels)
    elif kind == "ReplicationController":
        yield from _replication_controller(mapping(body.get("spec")), spec, template_labels)
    else:
        notes = at(body, ("spec", "template", "metadata", "annotations"))
        yield from _template(spec, "spec.template.spec", template_labels, notes)


_CONCURRENCY = ("Allow", "Forbid", "Replace")
_TIME_ZONE_PART = re.compile(r"[A-Za-z.\-_0-9+]{1,14}")


def _cron_schedule(cron: Mapping[str, Any]) -> Errors:
    """validateCronJobSpec before the job template, in its order: the schedule (required;
    as cron.ParseStandard reads it; no TZ in it), startingDeadlineSeconds not negative,
    the time zone, the concurrency policy (Allow unless written, SetDefaults_CronJob)."""
    schedule = _text(cron.get("schedule"))
    if schedule == "":
        yield FieldError("spec.schedule", REQUIRED)
    elif schedule is not None:  # validateScheduleFormat, for a new CronJob
        error = schedule_error(schedule)
        if error is not None:
            yield invalid("spec.schedule", schedule, error)
        if "TZ" in schedule:
            detail = "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"
            yield invalid("spec.schedule", schedule, detail)
    yield from _non_negative(cron, "startingDeadlineSeconds", "spec")
    zone = _text(cron.get("timeZone"))
    if cron.get("timeZone") is not None and zone is not None:
        yield from _time_zone(zone)
    policy = _text(cron.get("concurrencyPolicy"))
    if policy and policy not in _CONCURRENCY:  # validateConcurrencyPolicy
        yield not_supported("spec.concurrencyPolicy", policy, _CONCURRENCY)


def _time_zone(zone: str) -> Errors:
    """validateTimeZone: not empty, each part an IANA name component, not Local, and one
    time.LoadLocation finds. The zone is a pointer, printed as json.Marshal does."""
    shown = json_quote(zone)
    if not zone:
        detail = "timeZone must be nil or non-empty string"
        yield FieldError("spec.timeZone", INVALID, shown, detail)
        return
    for part in zone.split("/"):
        if part in (".", "..") or part.startswith("-") or not _TIME_ZONE_PART.fullmatch(part):
            yield FieldError("spec.timeZone", INVALID, shown, f"unknown time zone {zone}")
            return
    if zone.lower() == "local":
        detail = (
            "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"
        )
        yield FieldError("spec.timeZone", INVALID, shown, detail)
    error = time_zone_error(zone)
    if error is not None:
        yield FieldError("spec.timeZone", INVALID, shown, error)


_CRON_JOB_NAME = 52
"""DNS1035LabelMaxLength less the ``-<minutes>`` its controller appends to a Job's name."""


def object_meta(body: Mapping[str, Any], kind: str | None = None) -> Errors:
    """ValidateObjectMeta, in its order, for the generateName and name of a ``kind`` (not
    checked without one), the namespace (a DNS label), the labels and the annotations. A
    name left to ``generateName`` is the prefix, cut to 58 characters, and 5 random
    characters (drawn here from the prefix: only their place in a message is upstream's)."""
    metadata = mapping(body.get("metadata"))
    if kind is not None:
        yield from _names(metadata, kind)
    namespace = _text(metadata.get("namespace"))
    if namespace:  # ValidateNamespaceName
        yield from _each("metadata.namespace", namespace, dns1123_label_errors(namespace))
    yield from labels(metadata.get("labels"), "metadata.labels")
    yield from annotation_map(metadata.get("annotations"), "metadata.annotations")
    owners = [mapping(r) for r in as_list(metadata.get("ownerReferences"))]
    yield from owner_references(owners, "metadata.ownerReferences")
    finalizer_names = [_str(f) for f in as_list(metadata.get("finalizers"))]
    yield from finalizers(finalizer_names, "metadata.finalizers")


def owner_references(owners: list[Mapping[str, Any]], field: str) -> Errors:
    """ValidateOwnerReferences: each reference (validateOwnerReference, its errors named at
    the list's ``field`` with no index) with a version in its apiVersion
    (schema.FromAPIVersionAndKind), a kind, a name and a uid, and not to an Event (the
    BannedOwners); at most one controller, a second one refused with the whole list."""
    first_controller = ""
    for owner in owners:
        api_version, kind = _str(owner.get("apiVersion")), _str(owner.get("kind"))
        group, version = _group_version(api_version)
        if not version:
            yield invalid(f"{field}.apiVersion", api_version, "version must not be empty")
        for key in ("kind", "name", "uid"):
            if not _str(owner.get(key)):
                yield invalid(f"{field}.{key}", "", "must not be empty")
        if (group, version, kind) == ("", "v1", "Event"):
            detail = "/v1, Kind=Event is disallowed from being an owner"
            yield FieldError(field, INVALID, _json_owner(owner), detail)
        if owner.get("controller") is True:
            current = f"{kind}/{_str(owner.get('name'))}"
            if first_controller:
                shown = "[" + ",".join(map(_json_owner, owners)) + "]"
                detail = (
                    'Only one reference can have Controller set to true. Found "true" in '
                    f"references for {first_controller} and {current}"
                )
                yield FieldError(field, INVALID, shown, detail)
            else:
                first_controller = current


def _group_version(api_version: str) -> tuple[str, str]:
    """schema.ParseGroupVersion, as FromAPIVersionAndKind reads it: ``""`` and ``/`` no
    group and no version, ``v1`` the core group's, ``g/v`` a group's; two slashes or more
    an error, then no group and no version either."""
    if api_version in ("", "/") or api_version.count("/") > 1:
        return "", ""
    group, _, version = api_version.rpartition("/")
    return group, version


def _json_owner(owner: Mapping[str, Any]) -> str:
    """json.Marshal of a metav1.OwnerReference: its four strings, then its two *bool
    fields when set (omitempty)."""
    shown = [f'"{key}":{json_quote(_str(owner.get(key)))}' for key in _OWNER_STRINGS]
    for key in ("controller", "blockOwnerDeletion"):
        if isinstance(owner.get(key), bool):
            shown.append(f'"{key}":{_json_scalar(owner[key])}')
    return "{" + ",".join(shown) + "}"


_OWNER_STRINGS = ("apiVersion", "kind", "name", "uid")
_ORPHAN, _FOREGROUND = "orphan", "foregroundDeletion"
_STANDARD_FINALIZERS = frozenset({"kubernetes", _ORPHAN, _FOREGROUND})
"""helper.IsStandardFinalizerName: FinalizerKubernetes and metav1's two."""


def finalizers(names: list[str], field: str) -> Errors:
    """apimachinery's ValidateFinalizers (each a qualified name, named at the list's
    ``field`` with no index; not both ``orphan`` and ``foregroundDeletion``), then core's
    ValidateObjectMeta's validateKubeFinalizerName for each (one without a ``/`` a standard
    one)."""
    for name in names:
        yield from _each(field, name, qualified_name_errors(name))
    if _ORPHAN in names and _FOREGROUND in names:
        detail = f"finalizer {_ORPHAN} and {_FOREGROUND} cannot be both set"
        yield FieldError(field, INVALID, _json_strings(names), detail)
    for i, name in enumerate(names):
        if "/" not in name and name not in _STANDARD_FINALIZERS:
            detail = "name is neither a standard finalizer name nor is it fully qualified"
            yield invalid(f"{field}[{i}]", name, detail)


_LABEL_NAMED = frozenset({"StatefulSet"})
"""The kinds whose name is a DNS label (ValidateStatefulSetName, since v1.27); the others
fitgate reads take a DNS subdomain (NameIsDNSSubdomain: ValidatePodName,
ValidateDeploymentName, ValidateReplicaSetName, ValidateDaemonSetName,
ValidateReplicationControllerName, ValidateJob, ValidateCronJobCreate)."""


def stored_name(metadata: Mapping[str, Any]) -> str:
    """The name the object is validated by: its own, or the one rest.BeforeCreate generates
    from its ``generateName`` first ("" for neither)."""
    name = _text(metadata.get("name")) or ""
    prefix = _text(metadata.get("generateName")) or ""
    return generate_name(prefix, prefix) if not name and prefix else name


def _names(metadata: Mapping[str, Any], kind: str) -> Errors:
    """ValidateObjectMetaAccessor's generateName (a prefix: a trailing dash masked, as
    maskTrailingDash does) and name (required, or generated)."""
    rule = dns1123_label_errors if kind in _LABEL_NAMED else dns1123_subdomain_errors
    prefix = _text(metadata.get("generateName")) or ""
    if prefix:
        masked = prefix[:-2] + "a" if len(prefix) > 1 and prefix.endswith("-") else prefix
        yield from _each("metadata.generateName", prefix, rule(masked))
    name = stored_name(metadata)
    if not name:
        detail = "name or generateName is required"
        yield FieldError("metadata.name", REQUIRED, None, detail)
    else:
        yield from _each("metadata.name", name, rule(name))


def _pod(body: Mapping[str, Any], spec: Mapping[str, Any], named: bool = True) -> Errors:
    """ValidatePodCreate: the pod's metadata, annotations and spec, as stored
    (:func:`with_apparmor_fields`), images without surrounding spaces
    (validateContainersOnlyForPod), no node named while scheduling gates remain, then its
    security profiles' annotations matching their fields (:func:`profiles_match`). A pod
    not ``named`` here is a StatefulSet's, whose claims' volumes its controller adds."""
    yield from object_meta(body, "Pod" if named else None)
    notes = mapping(body.get("metadata")).get("annotations")
    spec = with_apparmor_fields(mapping(notes), spec)
    yield from pod_annotations(notes, spec, "metadata.annotations")
    pod = stored_name(mapping(body.get("metadata"))) if named else ""
    yield from pod_spec(spec, "spec", mounts_known=named, pod=pod, is_pod=True)
    yield from _pod_only(spec)
    yield from profiles_match(notes, spec, "spec")


def _pod_only(spec: Mapping[str, Any]) -> Errors:
    """What ValidatePodCreate holds a pod to after ValidatePodSpec, and no template is held
    to: images without surrounding spaces (validateContainersOnlyForPod), no ephemeral
    containers, and no node named while scheduling gates remain."""
    for key in ("containers", "initContainers"):
        for i, container in enumerate(containers_of(spec, key)):
            image = _text(container.get("image"))
            if image and image != image.strip(_GO_SPACE):
                detail = "must not have leading or trailing whitespace"
                yield invalid(f"spec.{key}[{i}].image", image, detail)
    if as_list(spec.get("ephemeralContainers")):  # only through their own subresource
        detail = "cannot be set on create"
        yield FieldError("spec.ephemeralContainers", FORBIDDEN, None, detail)
    if _text(spec.get("nodeName")) and as_list(spec.get("schedulingGates")):
        detail = "cannot be set until all schedulingGates have been cleared"
        yield FieldError("spec.nodeName", FORBIDDEN, None, detail)


def pod_only_problems(spec: Mapping[str, Any]) -> list[str]:
    """The errors ValidatePodCreate gives a pod created from ``spec``, a template its
    workload's API validated, that the template's validation did not, after ValidatePodSpec
    (:func:`_pod_only`; its volumes' are :func:`pod_volume_problems`): a controller's pods
    are refused for them though the workload was taken."""
    return [str(e) for e in _pod_only(spec)]


def pod_volume_problems(spec: Mapping[str, Any]) -> list[str]:
    """The errors ValidatePodSpec gives the volumes of a pod created from ``spec``, a
    template its workload's API validated, that the template's validation did not
    (:func:`_pod_only_volumes`), listed first as ValidatePodSpec validates volumes first."""
    return [str(e) for e in _pod_only_volumes(spec)]


def _pod_only_volumes(spec: Mapping[str, Any]) -> Errors:
    """What ValidatePodSpec holds a pod's volumes to (opts.ResourceIsPod) and not a
    validated template's: an image volume's reference, in the volumes' order; a volume so
    refused is none validateVolumeMounts finds, so each mount naming it is then not found,
    in validateContainers' then validateInitContainers' order."""
    refused: set[str] = set()
    for i, volume in enumerate(mapping(v) for v in as_list(spec.get("volumes"))):
        source = volume.get("image")
        if is_mapping(source):  # the template took it, so it is the only source
            found = list(_image_reference(source, f"spec.volumes[{i}].image"))
            yield from found
            if found:
                refused.add(_str(volume.get("name")))
    if not refused:
        return
    for key in ("containers", "initContainers"):
        for i, container in enumerate(containers_of(spec, key)):
            for j, mount in enumerate(mapping(m) for m in as_list(container.get("volumeMounts"))):
                name = _text(mount.get("name"))
                if name is not None and name in refused:
                    where = f"spec.{key}[{i}].volumeMounts[{j}].name"
                    yield FieldError(where, NOT_FOUND, go_quote(name))


@dataclass(frozen=True, slots=True)
class PodIdentity:
    """The hostname and subdomain a StatefulSet's controller gives the pod it creates
    (stateful_set_utils.go updateIdentity): the pod's own name and the set's
    ``serviceName``, in place of the template's. ``created``: its controller creates a pod
    at all (a StatefulSet of no replica creates none, which nothing then refuses)."""

    hostname: str
    subdomain: str
    created: bool = True


def pod_create_problems(
    spec: Mapping[str, Any],
    labels: Mapping[str, str],
    identity: PodIdentity | None = None,
    annotations: Mapping[str, str] | None = None,
) -> list[str]:
    """Every error ValidatePodCreate gives a pod of ``spec`` labelled ``labels`` and
    annotated ``annotations``, in its order: for a pod whose template its workload's API did
    not validate, a StatefulSet's, whose controller gives it the hostname and subdomain of
    ``identity`` (none written when an empty string)."""
    own = dict(spec)
    if identity is not None:
        for key, value in (("hostname", identity.hostname), ("subdomain", identity.subdomain)):
            own.pop(key, None)
            if value:
                own[key] = value
    metadata = {"labels": dict(labels), "annotations": dict(annotations or {})}
    return [str(e) for e in _pod({"metadata": metadata}, own, named=False)]


_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
_GO_SPACE += "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
"""unicode.IsSpace, which strings.TrimSpace trims."""


def _apps(
    kind: str, workload: Mapping[str, Any], spec: Mapping[str, Any], template_labels: object
) -> Errors:
    """ValidateDeploymentSpec, ValidateReplicaSetSpec, ValidateStatefulSetSpec and
    ValidateDaemonSetSpec: the selector required (a DaemonSet's null one matches nothing)
    and not empty, valid, matching the template's labels; then the template; then
    ``restartPolicy: Always`` and no ``activeDeadlineSeconds``. A selector
    LabelSelectorAsSelector refuses is itself an error, and then the template of a
    Deployment, ReplicaSet or StatefulSet goes unchecked. A StatefulSet's template is held
    to its labels alone (ValidatePodTemplateSpecForStatefulSet leaves its pod spec to the
    pods it creates)."""
    if kind == "StatefulSet":
        yield from _pod_management(workload.get("podManagementPolicy"))
        yield from _stateful_set_fields(workload)
    elif kind in ("Deployment", "ReplicaSet"):  # their specs' first rules
        yield from _non_negative(workload, "replicas", "spec")
        if kind == "ReplicaSet":
            yield from _non_negative(workload, "minReadySeconds", "spec")
    raw = workload.get("selector")
    if raw is None and kind != "DaemonSet":
        yield FieldError("spec.selector", REQUIRED)
    elif is_mapping(raw):
        yield from label_selector(raw, "spec.selector")
        if not mapping(raw.get("matchLabels")) and not as_list(raw.get("matchExpressions")):
            detail = f"empty selector is invalid for {_EMPTY_FOR[kind]}"
            yield FieldError("spec.selector", INVALID, json_selector(raw), detail)
    selector = _converted(raw)
    converts = selector is not None
    if not converts and kind != "DaemonSet":
        detail = "" if kind == "StatefulSet" else "invalid label selector"
        yield FieldError("spec.selector", INVALID, json_selector(mapping(raw)), detail)
    found = text_labels(template_labels) if is_mapping(template_labels) else None
    if converts or kind == "DaemonSet":
        if selector is not None and not selector.matches(found or {}):
            shown = json_labels(found)
            yield FieldError("spec.template.metadata.labels", INVALID, shown, MISMATCH)
        notes = at(workload, ("template", "metadata", "annotations"))
        if kind == "StatefulSet":
            yield from labels(template_labels, "spec.template.labels")
            yield from annotation_map(notes, "spec.template.annotations")
            yield from pod_annotations(notes, spec, "spec.template.annotations")
        else:
            yield from _template(spec, "spec.template.spec", template_labels, notes)
    if converts or kind not in ("Deployment", "ReplicaSet"):
        yield from _restart_policy(spec, "spec.template.spec.restartPolicy", ("Always",))
        if spec.get("activeDeadlineSeconds") is not None:
            detail = f"activeDeadlineSeconds in {_DEADLINE_OWNER[kind]} is not Supported"
            yield FieldError("spec.template.spec.activeDeadlineSeconds", FORBIDDEN, None, detail)
    if kind == "Deployment":
        yield from _deployment_strategy(mapping(workload.get("strategy")))
        yield from _deployment_counts(workload)
    elif kind == "DaemonSet":
        yield from _non_negative(workload, "minReadySeconds", "spec")
        yield from _daemon_set_strategy(mapping(workload.get("updateStrategy")))
        yield from _non_negative(workload, "revisionHistoryLimit", "spec")


_DEADLINE_OWNER = {"Deployment": "ReplicaSet", "ReplicaSet": "ReplicaSet"}
_DEADLINE_OWNER |= {"StatefulSet": "StatefulSet", "DaemonSet": "DaemonSet"}


def _converted(raw: object) -> LabelSelector | None:
    """The selector LabelSelectorAsSelector makes of ``raw`` (of a null one, Nothing), or
    None when it refuses it."""
    try:
        return parse_selector(raw)
    except SelectorError:
        return None


def _json_int_or_string(value: int | str) -> str:
    """IntOrString.MarshalJSON, which ErrorBody prints one with: the number, or the quoted
    string."""
    return str(value) if isinstance(value, int) else json_quote(value)


_PERCENT = re.compile("[0-9]+%")
_PERCENT_ERROR = regex_error(
    "a valid percent string must be a numeric string followed by an ending '%'",
    "[0-9]+%",
    "1%",
    "93%",
)


def _int_or_percent(raw: object, default: int | str) -> int | str | None:
    """A rolling update's count as the API server holds it after defaulting; None for a
    type the decoder refuses."""
    if raw is None:
        return default
    if isinstance(raw, bool) or not isinstance(raw, int | str):
        return None
    return raw


def _percent_value(value: int | str) -> int:
    """getIntOrPercentValue: a valid percent's number, else IntValue() (a string's
    strconv.Atoi, 0 when it is none)."""
    if isinstance(value, int):
        return value
    text = value[:-1] if _PERCENT.fullmatch(value) else value
    try:
        return int(text) if re.fullmatch(r"[+-]?[0-9]+", text) else 0
    except ValueError:
        return 0


def _positive_int_or_percent(value: int | str, field: str) -> Errors:
    """ValidatePositiveIntOrPercent, then IsNotMoreThan100Percent."""
    if isinstance(value, str):
        if not _PERCENT.fullmatch(value):
            yield FieldError(field, INVALID, _json_int_or_string(value), _PERCENT_ERROR)
    elif value < 0:
        yield FieldError(field, INVALID, str(value), NEGATIVE)


def _over_100(value: int | str, field: str) -> Errors:
    if isinstance(value, str) and _PERCENT.fullmatch(value) and int(value[:-1]) > 100:
        yield FieldError(
            field, INVALID, _json_int_or_string(value), "must not be greater than 100%"
        )


def _non_negative(spec: Mapping[str, Any], name: str, field: str) -> Errors:
    """ValidateNonnegativeField on an integer field as written (unset is no error)."""
    value = _int(spec.get(name))
    if value is not None and value < 0:
        yield FieldError(f"{field}.{name}", INVALID, str(value), NEGATIVE)


def _json_rolling(rolling: object, fields: tuple[str, ...]) -> str:
    """json.Marshal of an internal (untagged) rolling-update struct whose fields are
    IntOrStrings: Go's field names, an unset count 0, a null struct ``null``."""
    if not is_mapping(rolling):
        return "null"
    shown = []
    for name in fields:
        value = _int_or_percent(rolling.get(name), 0)
        text = "0" if value is None else _json_int_or_string(value)
        shown.append(f'"{name[0].upper()}{name[1:]}":{text}')
    return "{" + ",".join(shown) + "}"


def _json_strategy(kind: str, rolling: object, fields: tuple[str, ...]) -> str:
    """json.Marshal of an internal DeploymentStrategy or DaemonSetUpdateStrategy, which
    ErrorBody prints one with."""
    return f'{{"Type":{json_quote(kind)},"RollingUpdate":{_json_rolling(rolling, fields)}}}'


_ROLLING_FIELDS = ("maxUnavailable", "maxSurge")


def _deployment_counts(deployment: Mapping[str, Any]) -> Errors:
    """ValidateDeploymentSpec after the strategy: minReadySeconds and revisionHistoryLimit
    not negative, progressDeadlineSeconds (600 unless written) not negative and above
    minReadySeconds."""
    yield from _non_negative(deployment, "minReadySeconds", "spec")
    yield from _non_negative(deployment, "revisionHistoryLimit", "spec")
    deadline = _int(deployment.get("progressDeadlineSeconds"))
    if deployment.get("progressDeadlineSeconds") is None:
        deadline = 600  # SetDefaults_Deployment
    ready = _int(deployment.get("minReadySeconds"))
    if deadline is None or ready is None:
        return
    yield from _non_negative(
        {"progressDeadlineSeconds": deadline}, "progressDeadlineSeconds", "spec"
    )
    if deadline <= ready:
        detail = "must be greater than minReadySeconds"
        yield FieldError("spec.progressDeadlineSeconds", INVALID, str(deadline), detail)


_SET_STRATEGIES = ("RollingUpdate", "OnDelete")
_RETENTION = ("Retain", "Delete")


def _stateful_set_fields(stateful_set: Mapping[str, Any]) -> Errors:
    """ValidateStatefulSetSpec after the pod management policy, in its order: the update
    strategy (RollingUpdate unless written; its partition not negative), the claim
    retention policy (Retain where unset), replicas, minReadySeconds and ordinals.start
    not negative. The strategy's maxUnavailable is dropped before validation while
    MaxUnavailableStatefulSet is off, as in v1.34."""
    strategy = mapping(stateful_set.get("updateStrategy"))
    kind = _text(strategy.get("type"))
    rolling = strategy.get("rollingUpdate")
    if kind == "OnDelete" and is_mapping(rolling):
        partition = _int(rolling.get("partition"))
        shown = f'{{"Partition":{partition or 0},"MaxUnavailable":null}}'
        detail = "only allowed for updateStrategy 'RollingUpdate'"
        yield FieldError("spec.updateStrategy.rollingUpdate", INVALID, shown, detail)
    elif kind in ("", "RollingUpdate") and is_mapping(rolling):
        yield from _non_negative(rolling, "partition", "spec.updateStrategy.rollingUpdate")
    elif kind and kind not in _SET_STRATEGIES:
        shown = f'{{"Type":{json_quote(kind)},"RollingUpdate":'
        if is_mapping(rolling):
            shown += (
                f'{{"Partition":{_int(rolling.get("partition")) or 0},"MaxUnavailable":null}}}}'
            )
        else:
            shown += "null}"
        detail = "must be 'RollingUpdate' or 'OnDelete'"
        yield FieldError("spec.updateStrategy", INVALID, shown, detail)
    policy = mapping(stateful_set.get("persistentVolumeClaimRetentionPolicy"))
    for name in ("whenDeleted", "whenScaled"):
        value = _text(policy.get(name))
        if value and value not in _RETENTION:
            where = f"spec.persistentVolumeClaimRetentionPolicy.{name}"
            yield not_supported(where, value, _RETENTION)
    yield from _non_negative(stateful_set, "replicas", "spec")
    yield from _non_negative(stateful_set, "minReadySeconds", "spec")
    yield from _non_negative(mapping(stateful_set.get("ordinals")), "start", "spec.ordinals")


def _deployment_strategy(strategy: Mapping[str, Any]) -> Errors:
    """ValidateDeploymentStrategy and ValidateRollingUpdateDeployment, after
    SetDefaults_Deployment (RollingUpdate, 25% and 25%); a type of neither kind is
    printed as the internal struct marshals."""
    kind = _text(strategy.get("type")) or "RollingUpdate"
    rolling = strategy.get("rollingUpdate")
    if kind not in ("Recreate", "RollingUpdate"):
        shown = _json_strategy(kind, rolling, _ROLLING_FIELDS)
        yield not_supported_value("spec.strategy", shown, ("Recreate", "RollingUpdate"))
        return
    if kind == "Recreate" and rolling is not None:
        detail = "may not be specified when strategy `type` is 'Recreate'"
        yield FieldError("spec.strategy.rollingUpdate", FORBIDDEN, None, detail)
    if kind != "RollingUpdate" or (rolling is not None and not is_mapping(rolling)):
        return
    where = "spec.strategy.rollingUpdate"
    found = mapping(rolling)
    unavailable = _int_or_percent(found.get("maxUnavailable"), "25%")
    surge = _int_or_percent(found.get("maxSurge"), "25%")
    if unavailable is None or surge is None:
        return
    yield from _positive_int_or_percent(unavailable, f"{where}.maxUnavailable")
    yield from _positive_int_or_percent(surge, f"{where}.maxSurge")
    if _percent_value(unavailable) == 0 and _percent_value(surge) == 0:
        shown = _json_int_or_string(unavailable)
        detail = "may not be 0 when `maxSurge` is 0"
        yield FieldError(f"{where}.maxUnavailable", INVALID, shown, detail)
    yield from _over_100(unavailable, f"{where}.maxUnavailable")


def _daemon_set_strategy(strategy: Mapping[str, Any]) -> Errors:
    """ValidateDaemonSetUpdateStrategy and ValidateRollingUpdateDaemonSet, after
    SetDefaults_DaemonSet (RollingUpdate, maxUnavailable 1, maxSurge 0): exactly one of
    the two is not zero; a type of neither kind is printed as the internal struct
    marshals."""
    kind = _text(strategy.get("type")) or "RollingUpdate"
    rolling = strategy.get("rollingUpdate")
    if kind not in _SET_STRATEGIES:
        shown = _json_strategy(kind, rolling, _ROLLING_FIELDS)
        yield not_supported_value("spec.updateStrategy", shown, _SET_STRATEGIES)
        return
    if kind != "RollingUpdate" or (rolling is not None and not is_mapping(rolling)):
        return
    where = "spec.updateStrategy.rollingUpdate"
    found = mapping(rolling)
    unavailable = _int_or_percent(found.get("maxUnavailable"), 1)
    surge = _int_or_percent(found.get("maxSurge"), 0)
    if unavailable is None or surge is None:
        return
    yield from _positive_int_or_percent(unavailable, f"{where}.maxUnavailable")
    yield from _positive_int_or_percent(surge, f"{where}.maxSurge")
    yield from _over_100(unavailable, f"{where}.maxUnavailable")
    yield from _over_100(surge, f"{where}.maxSurge")
    has_unavailable, has_surge = _percent_value(unavailable) != 0, _percent_value(surge) != 0
    if has_unavailable and has_surge:
        detail = "may not be set when maxUnavailable is non-zero"
        yield FieldError(f"{where}.maxSurge", INVALID, _json_int_or_string(surge), detail)
    elif not has_unavailable and not has_surge:
        detail = "cannot be 0 when maxSurge is 0"
        yield FieldError(f"{where}.maxUnavailable", REQUIRED, None, detail)


def _pod_management(raw: object) -> Errors:
    """ValidateStatefulSetSpec's first rule: OrderedReady (the default) or Parallel."""
    policy = _text(raw)
    if policy and policy not in ("OrderedReady", "Parallel"):
        detail = "must be 'OrderedReady' or 'Parallel'"
        yield invalid("spec.podManagementPolicy", policy, detail)


def _selects(raw: object, template_labels: Mapping[str, str]) -> bool:
    """Whether the selector matches the labels; an invalid one is reported by its own
    rules, and an empty one (Everything) is no mismatch."""
    try:
        return parse_selector(raw).matches(template_labels)
    except SelectorError:
        return True


def _restart_policy(spec: Mapping[str, Any], field: str, allowed: tuple[str, ...]) -> Errors:
    """The controller's own rule on its pods' restart policy, beside validateRestartPolicy's:
    a policy of no known kind is refused by both, each with its own supported values."""
    policy = _text(spec.get("restartPolicy"))
    if policy is None:
        return  # of a wrong type: the decoder's to refuse
    policy = policy or "Always"  # SetDefaults_PodSpec
    if policy not in allowed:
        yield not_supported(field, policy, allowed)


def _replication_controller(
    rc: Mapping[str, Any], spec: Mapping[str, Any], template_labels: object
) -> Errors:
    """ValidateReplicationControllerSpec: minReadySeconds, a selector (an empty one is the
    template's labels, SetDefaults_ReplicationController), replicas, then the template,
    which the selector must match, its pods restarting ``Always``, without
    ``activeDeadlineSeconds`` (ValidatePodTemplateSpecForRC)."""
    yield from _non_negative(rc, "minReadySeconds", "spec")
    found = text_labels(template_labels)
    selector = text_labels(rc.get("selector")) or found
    if not selector:  # ValidateNonEmptySelector
        yield FieldError("spec.selector", REQUIRED)
    yield from _non_negative(rc, "replicas", "spec")
    if selector and any(found.get(k) != v for k, v in selector.items()):
        shown = json_labels(found if is_mapping(template_labels) else None)
        yield FieldError("spec.template.metadata.labels", INVALID, shown, MISMATCH)
    notes = at(rc, ("template", "metadata", "annotations"))
    yield from _template(spec, "spec.template.spec", template_labels, notes)
    yield from _restart_policy(spec, "spec.template.spec.restartPolicy", ("Always",))
    if spec.get("activeDeadlineSeconds") is not None:
        detail = "activeDeadlineSeconds in ReplicationController is not Supported"
        yield FieldError("spec.template.spec.activeDeadlineSeconds", FORBIDDEN, None, detail)


def _job(
    job: Mapping[str, Any], field: str, spec: Mapping[str, Any], name: str | None = None
) -> Errors:
    """validateJobSpec and its template (restartPolicy OnFailure or Never; Never when a
    podFailurePolicy is set); a Job with ``manualSelector: true`` needs a selector that
    matches its template's labels (otherwise the API server generates both, the template's
    labels then holding the Job's ``name`` as its job-name labels); a CronJob's job
    template may carry neither (ValidateJobTemplateSpec)."""
    template_labels = at(job, ("template", "metadata", "labels"))
    manual = job.get("manualSelector") is True
    raw = job.get("selector")
    cron = field != "spec"
    yield from _job_counts(job, field, cron)
    yield from _pod_failure_policy(job, field, spec)
    yield from _success_policy(job, field, cron)
    yield from _replacement_policy(job, field)
    validated = template_labels
    if name is not None and not manual:
        validated = _with_job_name(template_labels, name)
    notes = at(job, ("template", "metadata", "annotations"))
    yield from _template(spec, f"{field}.template.spec", validated, notes)
    where = f"{field}.template.spec.restartPolicy"
    policy = _text(spec.get("restartPolicy"))
    if policy in ("", "Always"):  # "" is SetDefaults_PodSpec's Always
        yield FieldError(where, REQUIRED, None, 'valid values: "OnFailure", "Never"')
    elif policy is not None and policy not in _JOB_RESTARTS:
        yield not_supported(where, policy, _JOB_RESTARTS)
    elif job.get("podFailurePolicy") is not None and policy == "OnFailure":
        detail = 'only "Never" is supported when podFailurePolicy is specified'
        yield invalid(where, "OnFailure", detail)
    if not cron and (manual or name is not None):  # ValidateJobSpec, after validateJobSpec
        found = text_labels(template_labels) if is_mapping(template_labels) else None
        selector = raw
        if not manual and name is not None:
            found, selector = _generated(job, name)
        if selector is None:
            yield FieldError(f"{field}.selector", REQUIRED)
        else:
            yield from label_selector(selector, f"{field}.selector")
            if not _selects(selector, found or {}):
                shown = json_labels(found)
                yield FieldError(f"{field}.template.metadata.labels", INVALID, shown, MISMATCH)
    if cron and is_mapping(raw):
        yield FieldError(
            f"{field}.selector", INVALID, json_selector(raw), "`selector` will be auto-generated"
        )
    if cron and manual:
        yield FieldError(
            f"{field}.manualSelector", UNSUPPORTED, "true", 'supported values: "nil", "false"'
        )


_JOB_RESTARTS = ("OnFailure", "Never")
_JOB_COUNTS = (
    "parallelism",
    "completions",
    "activeDeadlineSeconds",
    "backoffLimit",
    "ttlSecondsAfterFinished",
    "backoffLimitPerIndex",
    "maxFailedIndexes",
)
_COMPLETION_MODES = ("NonIndexed", "Indexed")
_INDEXED = "Indexed"
_MAX_INDEXED_PARALLELISM = 100_000
"""maxParallelismForIndexedJob, maxFailedIndexesForIndexedJob and completionsSoftLimit."""
_HIGH_COMPLETIONS_LIMIT = 10_000
"""parallelismLimitForHighCompletions and maxFailedIndexesLimitForHighCompletions."""
_NEEDS_INDEXED = "requires indexed completion mode"
_REPLACEMENTS = ("Failed", "TerminatingOrFailed")


def _job_counts(job: Mapping[str, Any], field: str, cron: bool) -> Errors:
    """validateJobSpec before the template, in its order: the counts not negative, the
    managedBy path, what the completion mode allows. A Job's counts are those
    SetDefaults_Job leaves (both 1 when neither is written); a CronJob's job
    template is not defaulted so."""
    counts = {
        name: job[name]
        for name in _JOB_COUNTS
        if job.get(name) is not None and _int(job[name]) is not None
    }
    if not cron and "completions" not in counts and "parallelism" not in counts:
        counts["completions"] = counts["parallelism"] = 1
    for name in _JOB_COUNTS:  # ValidateNonnegativeField
        value = counts.get(name)
        if value is not None and value < 0:
            yield FieldError(f"{field}.{name}", INVALID, str(value), NEGATIVE)
        if (
            name == "maxFailedIndexes"
            and value is not None
            and "backoffLimitPerIndex" not in counts
        ):
            detail = "when maxFailedIndexes is specified"
            yield FieldError(f"{field}.backoffLimitPerIndex", REQUIRED, None, detail)
    yield from _managed_by(job, field)
    mode = _text(job.get("completionMode")) if job.get("completionMode") is not None else None
    if mode is not None and mode not in _COMPLETION_MODES:
        yield not_supported(f"{field}.completionMode", mode, _COMPLETION_MODES)
    if mode == _INDEXED:
        yield from _indexed_counts(counts, field)
    elif mode in (None, "NonIndexed"):
        for name in ("backoffLimitPerIndex", "maxFailedIndexes"):
            if name in counts:
                yield FieldError(f"{field}.{name}", INVALID, str(counts[name]), _NEEDS_INDEXED)


def _replacement_policy(job: Mapping[str, Any], field: str) -> Errors:
    """validatePodReplacementPolicy (sets.List: sorted); only Failed beside a
    podFailurePolicy."""
    replacement = _text(job.get("podReplacementPolicy"))
    if job.get("podReplacementPolicy") is not None and replacement is not None:
        allowed = ("Failed",) if job.get("podFailurePolicy") is not None else _REPLACEMENTS
        if replacement not in allowed:
            yield not_supported(f"{field}.podReplacementPolicy", replacement, allowed)


_JOB_NAME_LABELS = ("job-name", "batch.kubernetes.io/job-name")


def _with_job_name(template_labels: object, name: str) -> dict[str, Any]:
    """The template's labels as generateSelector leaves them before validation: each
    job-name label the template does not set holds the Job's name. (The controller-uid
    labels it adds hold a uid, always a valid label value.)"""
    labels = dict(mapping(template_labels))
    for key in _JOB_NAME_LABELS:
        labels.setdefault(key, name)
    return labels


def _generated(job: Mapping[str, Any], name: str) -> tuple[dict[str, str], dict[str, Any]]:
    """generateSelector, which the Job strategy runs before validation unless
    ``manualSelector``: the template's labels with each job-name (``name``) and
    controller-uid label it lacks, and the written selector with the
    ``batch.kubernetes.io/controller-uid`` matchLabel unless it has one. The UID is the
    stand-in the Job's pods carry (:mod:`gate.k8s.podlabels`)."""
    uid = stand_in_uid("Job", name)
    found = text_labels(at(job, ("template", "metadata", "labels")))
    for key in JOB_NAME:
        found.setdefault(key, name)
    for key in CONTROLLER_UID:
        found.setdefault(key, uid)
    selector = dict(mapping(job.get("selector")))
    selector["matchLabels"] = {CONTROLLER_UID[0]: uid, **text_labels(selector.get("matchLabels"))}
    return found, selector


def _generated_selector(job: Mapping[str, Any], name: str) -> Errors:
    """validateGeneratedSelector (RequirePrefixedLabels, as for every new Job), after the
    Job's metadata: without ``manualSelector``, the template's controller-uid and job-name
    labels (legacy, then prefixed) as generateSelector makes them (ValidateHasLabel: a label
    the template sets otherwise is refused), and a selector that selects no more than they
    do (one written beside them is refused as not auto-generated). The UID in these
    messages is a stand-in: the API server's is its own."""
    if job.get("manualSelector") is True:
        return
    found, selector = _generated(job, name)
    uid = stand_in_uid("Job", name)
    expected = {CONTROLLER_UID[1]: uid, JOB_NAME[1]: name, CONTROLLER_UID[0]: uid}
    expected[JOB_NAME[0]] = name
    for key, value in expected.items():
        if found[key] != value:
            where = f"spec.template.metadata.labels[{key}]"
            yield FieldError(where, INVALID, json_labels(found), f"must be '{value}'")
    converted = _converted(selector)
    if converted is not None and not converted.matches(expected):
        detail = "`selector` not auto-generated"
        yield FieldError("spec.selector", INVALID, json_selector(selector), detail)


def _managed_by(job: Mapping[str, Any], field: str) -> Errors:
    """validateJobSpec's managedBy: IsDomainPrefixedPath, then at most 63 characters."""
    value = _text(job.get("managedBy"))
    if job.get("managedBy") is None or value is None:
        return
    where = f"{field}.managedBy"
    if not value:
        yield FieldError(where, REQUIRED)
    else:
        host, slash, path = value.partition("/")
        if not slash or not host or not path:
            detail = 'must be a domain-prefixed path (such as "acme.io/foo")'
            yield invalid(where, value, detail)
        else:
            yield from _each(where, host, dns1123_subdomain_errors(host))
            if not _HTTP_PATH.fullmatch(path):
                yield invalid(
                    where, path, f"Invalid path (regex used for validation is '{_HTTP_PATH_FMT}')"
                )
    if len(value.encode()) > _MAX_MANAGED_BY:
        yield FieldError(where, TOO_LONG, None, f"may not be more than {_MAX_MANAGED_BY} bytes")


_HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+"
_HTTP_PATH = re.compile(_HTTP_PATH_FMT)
_MAX_MANAGED_BY = 63
_FAILURE_ACTIONS = ("Count", "FailIndex", "FailJob", "Ignore")  # sets.List: sorted
_EXIT_OPERATORS = ("In", "NotIn")
_CONDITION_STATUSES = ("False", "True", "Unknown")
_MAX_FAILURE_RULES, _MAX_EXIT_VALUES, _MAX_CONDITION_PATTERNS = 20, 255, 20


def _go_list(values: tuple[str, ...]) -> str:
    """``%q`` of a []string: ``["a" "b"]``."""
    return "[" + " ".join(go_quote(v) for v in values) + "]"


def _too_many(field: str, count: int, most: int) -> FieldError:
    """field.TooMany."""
    return FieldError(field, TOO_MANY, str(count), f"must have at most {most} items")


def _pod_failure_policy(job: Mapping[str, Any], field: str, spec: Mapping[str, Any]) -> Errors:
    """validatePodFailurePolicy: at most 20 rules, each by validatePodFailurePolicyRule
    (an onPodConditions pattern's unset status is True, SetDefaults_Job)."""
    policy = job.get("podFailurePolicy")
    if not is_mapping(policy):
        return
    rules = as_list(policy.get("rules"))
    where = f"{field}.podFailurePolicy.rules"
    if len(rules) > _MAX_FAILURE_RULES:
        yield _too_many(where, len(rules), _MAX_FAILURE_RULES)
    names = {
        _text(c.get("name"))
        for key in ("containers", "initContainers")
        for c in containers_of(spec, key)
    }
    per_index = job.get("backoffLimitPerIndex") is not None
    for i, raw in enumerate(rules):
        yield from _failure_rule(mapping(raw), f"{where}[{i}]", names, per_index)


def _failure_rule(
    rule: Mapping[str, Any], where: str, names: set[str | None], per_index: bool
) -> Errors:
    """validatePodFailurePolicyRule: the action, onExitCodes, onPodConditions, then one of
    the two and not both."""
    action = _text(rule.get("action"))
    if action == "":
        yield FieldError(
            f"{where}.action", REQUIRED, None, f"valid values: {_go_list(_FAILURE_ACTIONS)}"
        )
    elif action == "FailIndex":
        if not per_index:
            yield invalid(f"{where}.action", action, "requires the backoffLimitPerIndex to be set")
    elif action is not None and action not in _FAILURE_ACTIONS:
        yield not_supported(f"{where}.action", action, _FAILURE_ACTIONS)
    exit_codes = rule.get("onExitCodes")
    if is_mapping(exit_codes):
        yield from _on_exit_codes(exit_codes, f"{where}.onExitCodes", names)
    patterns = as_list(rule.get("onPodConditions"))
    if patterns:
        yield from _on_pod_conditions(patterns, f"{where}.onPodConditions")
    if is_mapping(exit_codes) and patterns:
        detail = "specifying both OnExitCodes and OnPodConditions is not supported"
        yield FieldError(where, INVALID, None, detail)
    if not is_mapping(exit_codes) and not patterns:
        detail = "specifying one of OnExitCodes and OnPodConditions is required"
        yield FieldError(where, INVALID, None, detail)


def _on_exit_codes(requirement: Mapping[str, Any], where: str, names: set[str | None]) -> Errors:
    """validatePodFailurePolicyRuleOnExitCodes."""
    operator = _text(requirement.get("operator"))
    if operator == "":
        yield FieldError(
            f"{where}.operator", REQUIRED, None, f"valid values: {_go_list(_EXIT_OPERATORS)}"
        )
    elif operator is not None and operator not in _EXIT_OPERATORS:
        yield not_supported(f"{where}.operator", operator, _EXIT_OPERATORS)
    container = requirement.get("containerName")
    if isinstance(container, str) and container not in names:
        detail = "must be one of the container or initContainer names in the pod template"
        yield invalid(f"{where}.containerName", container, detail)
    raw = requirement.get("values")
    values = [v for v in (_int(v) for v in as_list(raw)) if v is not None]
    shown = "[" + ",".join(map(str, values)) + "]" if isinstance(raw, list) else "null"
    if not values:
        yield FieldError(f"{where}.values", INVALID, shown, "at least one value is required")
    elif len(values) > _MAX_EXIT_VALUES:
        yield _too_many(f"{where}.values", len(values), _MAX_EXIT_VALUES)
    seen: set[int] = set()
    for j, value in enumerate(values):
        if operator == "In" and value == 0:
            yield FieldError(
                f"{where}.values[{j}]", INVALID, "0", "must not be 0 for the In operator"
            )
        if value in seen:
            yield FieldError(f"{where}.values[{j}]", DUPLICATE, str(value))
        seen.add(value)
    if any(a > b for a, b in itertools.pairwise(values)):
        yield FieldError(f"{where}.values", INVALID, shown, "must be ordered")


def _on_pod_conditions(patterns: list[Any], where: str) -> Errors:
    """validatePodFailurePolicyRuleOnPodConditions."""
    if len(patterns) > _MAX_CONDITION_PATTERNS:
        yield _too_many(where, len(patterns), _MAX_CONDITION_PATTERNS)
    for j, raw in enumerate(patterns):
        pattern = mapping(raw)
        kind = _text(pattern.get("type"))
        if kind is not None:
            yield from label_name(kind, f"{where}[{j}].type")
        status = _text(pattern.get("status")) or "True"  # SetDefaults_Job
        if status not in _CONDITION_STATUSES:
            yield not_supported(f"{where}[{j}].status", status, _CONDITION_STATUSES)


_MAX_SUCCESS_RULES = 20
_MAX_SUCCEEDED_INDEXES = 64 * 1024


def _success_policy(job: Mapping[str, Any], field: str, cron: bool) -> Errors:
    """validateJobSpec's successPolicy: only for an Indexed Job (the policy is then printed
    as its internal struct marshals), one to 20 rules, each by validateSuccessPolicyRule."""
    policy = job.get("successPolicy")
    if not is_mapping(policy):
        return
    where = f"{field}.successPolicy"
    rules = [mapping(r) for r in as_list(policy.get("rules"))]
    if job.get("completionMode") != _INDEXED:
        shown = (
            '{"Rules":'
            + (
                "[" + ",".join(map(_json_success_rule, rules)) + "]"
                if isinstance(policy.get("rules"), list)
                else "null"
            )
            + "}"
        )
        yield FieldError(where, INVALID, shown, _NEEDS_INDEXED)
        return
    if not rules:
        detail = "at least one rules must be specified when the successPolicy is specified"
        yield FieldError(f"{where}.rules", REQUIRED, None, detail)
    if len(rules) > _MAX_SUCCESS_RULES:
        yield _too_many(f"{where}.rules", len(rules), _MAX_SUCCESS_RULES)
    completions = _int(job.get("completions"))
    if job.get("completions") is None and job.get("parallelism") is None and not cron:
        completions = 1  # SetDefaults_Job
    elif job.get("completions") is None or completions is None:
        return  # upstream dereferences a nil completions here: not modelled
    for i, rule in enumerate(rules):
        yield from _success_rule(rule, f"{where}.rules[{i}]", completions)


def _json_success_rule(rule: Mapping[str, Any]) -> str:
    indexes = (
        _text(rule.get("succeededIndexes")) if rule.get("succeededIndexes") is not None else None
    )
    count = _int(rule.get("succeededCount")) if rule.get("succeededCount") is not None else None
    shown_indexes = "null" if indexes is None else json_quote(indexes)
    shown_count = "null" if count is None else str(count)
    return f'{{"SucceededIndexes":{shown_indexes},"SucceededCount":{shown_count}}}'


def _success_rule(rule: Mapping[str, Any], where: str, completions: int) -> Errors:
    """validateSuccessPolicyRule."""
    indexes = (
        _text(rule.get("succeededIndexes")) if rule.get("succeededIndexes") is not None else None
    )
    count = _int(rule.get("succeededCount")) if rule.get("succeededCount") is not None else None
    if indexes is None and count is None:
        detail = "at least one of succeededCount or succeededIndexes must be specified"
        yield FieldError(where, REQUIRED, None, detail)
    total = 0
    if indexes is not None:
        if len(indexes.encode()) > _MAX_SUCCEEDED_INDEXES:
            detail = f"may not be more than {_MAX_SUCCEEDED_INDEXES} bytes"
            yield FieldError(f"{where}.succeededIndexes", TOO_LONG, None, detail)
        try:
            total = _indexes_total(indexes, completions)
        except ValueError as error:
            detail = f"error parsing succeededIndexes: {error}"
            yield invalid(f"{where}.succeededIndexes", indexes, detail)
    if count is not None:
        at_count = f"{where}.succeededCount"
        if count < 0:
            yield FieldError(at_count, INVALID, str(count), NEGATIVE)
        if count > completions:
            detail = (
                f"must be less than or equal to {completions} (the number of specified completions)"
            )
            yield FieldError(at_count, INVALID, str(count), detail)
        if indexes is not None and count > total:
            detail = (
                f"must be less than or equal to {total} (the number of indexes in the "
                "specified succeededIndexes field)"
            )
            yield FieldError(at_count, INVALID, str(count), detail)


_ATOI = re.compile(r"[+-]?[0-9]+")


def _indexes_total(text: str, completions: int) -> int:
    """validateIndexesFormat: how many indexes ``text`` lists, or ValueError in its words."""
    if not text:
        return 0
    last: int | None = None
    total = 0
    for interval in text.split(","):
        low, high = _index_interval(interval, completions)
        if last is not None and last >= low:
            raise ValueError(f"non-increasing order, previous: {last}, current: {low}")
        total += high - low + 1
        last = high
    return total


def _index_interval(interval: str, completions: int) -> tuple[int, int]:
    """parseIndexInterval."""
    limits = interval.split("-")
    if len(limits) > 2:
        raise ValueError(
            f"the fragment {go_quote(interval)} violates the requirement that an index "
            "interval can have at most two parts separated by '-'"
        )
    bounds = []
    for text in limits:
        if not _ATOI.fullmatch(text) or not -(2**63) <= int(text) < 2**63:
            raise ValueError(f"cannot convert string to integer for index: {go_quote(text)}")
        if int(text) >= completions:
            raise ValueError(f"too large index: {go_quote(text)}")
        bounds.append(int(text))
    if len(bounds) == 2 and bounds[0] >= bounds[1]:
        raise ValueError(f"non-increasing order, previous: {bounds[0]}, current: {bounds[1]}")
    return bounds[0], bounds[-1]


def _indexed_counts(counts: Mapping[str, int], field: str) -> Errors:
    """validateJobSpec's rules on an Indexed Job's counts."""
    completions, parallelism = counts.get("completions"), counts.get("parallelism")
    failed, per_index = counts.get("maxFailedIndexes"), counts.get("backoffLimitPerIndex")
    limit = _MAX_INDEXED_PARALLELISM
    if completions is None:
        yield FieldError(f"{field}.completions", REQUIRED, None, "when completion mode is Indexed")
    if parallelism is not None and parallelism > limit:
        detail = f"must be less than or equal to {limit} when completion mode is Indexed"
        yield FieldError(f"{field}.parallelism", INVALID, str(parallelism), detail)
    if completions is not None and failed is not None and failed > completions:
        detail = "must be less than or equal to completions"
        yield FieldError(f"{field}.maxFailedIndexes", INVALID, str(failed), detail)
    if failed is not None and failed > limit:
        detail = f"must be less than or equal to {limit}"
        yield FieldError(f"{field}.maxFailedIndexes", INVALID, str(failed), detail)
    if completions is None or completions <= limit or per_index is None:
        return
    high = _HIGH_COMPLETIONS_LIMIT
    if failed is None:
        detail = f"must be specified when completions is above {limit}"
        yield FieldError(f"{field}.maxFailedIndexes", REQUIRED, None, detail)
    tail = f"when completions are above {limit} and used with backoff limit per index"
    if parallelism is not None and parallelism > high:
        detail = f"must be less than or equal to {high} {tail}"
        yield FieldError(f"{field}.parallelism", INVALID, str(parallelism), detail)
    if failed is not None and failed > high:
        detail = f"must be less than or equal to {high} {tail}"
        yield FieldError(f"{field}.maxFailedIndexes", INVALID, str(failed), detail)


def _indexed_hostnames(body: Mapping[str, Any]) -> Errors:
    """ValidateJob's last rule: an Indexed Job's name, suffixed with its last index, is
    the hostname of a pod, so a DNS label."""
    job = mapping(body.get("spec"))
    name = stored_name(mapping(body.get("metadata")))
    completions = _int(job.get("completions"))
    if job.get("completionMode") != _INDEXED or not name or not completions:
        return
    if completions > 0:
        hostname = f"{name}-{completions - 1}"
        if dns1123_label_errors(hostname):
            detail = f"will not able to create pod with invalid DNS label: {hostname}"
            yield invalid("metadata.name", name, detail)
