"""The names a workload's controller gives the pods it creates, as the API server's
refusal of one quotes it (``pods "web-5d8f7c9b4-x2k9q" is forbidden: ...``).

A StatefulSet names its pods ``<name>-<ordinal>``, and a bare Pod is its own name: those are
exact. The other controllers ask the API server to generate a name (``generateName``): a
ReplicaSet's pods ``<replicaset>-<5 random characters>``, with a Deployment's ReplicaSet named
``<deployment>-<pod-template-hash>``; a Job's ``<job>-``, an indexed Job's
``<job>-<index>-``; a CronJob's Job ``<cronjob>-<scheduled time in minutes>``; a DaemonSet's
``<daemonset>-``. The API server cuts a generated name's prefix to 58 characters before it
appends the 5 random ones (apiserver/pkg/storage/names ``SimpleNameGenerator``); an indexed
Job keeps its ``-<index>-`` whole and cuts its own name instead
(pkg/controller/job/job_controller.go ``podGenerateNameWithIndex``). The random part, the
template hash (FNV-32a over Go's dump of the template, which no other program reproduces)
and the schedule are stand-ins here: drawn from the same alphabet
(``k8s.io/apimachinery/pkg/util/rand``), derived from the workload's name and the pod's
position, so a run names the same pod the same way every time.
"""

from __future__ import annotations

from typing import Final

ALPHANUMS: Final = "bcdfghjklmnpqrstvwxz2456789"
"""util/rand's alphabet: no vowels, no 0/1/3, so no words and nothing mistaken for another."""
_FNV_OFFSET, _FNV_PRIME = 0x811C9DC5, 0x01000193
_RANDOM_LENGTH: Final = 5
MAX_GENERATED_NAME_LENGTH: Final = 63 - _RANDOM_LENGTH
"""names.MaxGeneratedNameLength: the longest prefix a generated name keeps."""


def fnv32a(text: str) -> int:
    """FNV-1a, 32 bits (``hash/fnv``), over the UTF-8 bytes of ``text``.

    >>> fnv32a(""), fnv32a("a")
    (2166136261, 3826002220)
    """
    value = _FNV_OFFSET
    for byte in text.encode("utf-8"):
        value = ((value ^ byte) * _FNV_PRIME) & 0xFFFFFFFF
    return value


def safe_encode(text: str) -> str:
    """rand.SafeEncodeString: each byte mapped into :data:`ALPHANUMS`."""
    return "".join(ALPHANUMS[b % len(ALPHANUMS)] for b in text.encode("utf-8"))


def _random_part(seed: str, length: int = _RANDOM_LENGTH) -> str:
    value = fnv32a(seed)
    out = []
    for _ in range(length):
        value, digit = divmod(value, len(ALPHANUMS))
        out.append(ALPHANUMS[digit])
        value = fnv32a(f"{seed}/{value}") if value == 0 else value
    return "".join(out)


def template_hash(name: str, template: str = "") -> str:
    """The stand-in ``pod-template-hash`` of a Deployment's template (``template``: text that
    stands for it; the name when none is given), as its ReplicaSet's name and its pods'
    label carry it."""
    return safe_encode(str(fnv32a(template or name)))


def controller_object(kind: str, name: str, template: str = "") -> tuple[str, str] | None:
    """The object a new workload's controller creates before its pods, by kind and name: a
    Deployment's ReplicaSet ``<name>-<pod-template-hash>``, a CronJob's first Job
    ``<name>-<scheduled minutes>``; None for the kinds that create pods themselves."""
    if kind == "Deployment":
        return "ReplicaSet", f"{name}-{template_hash(name, template)}"
    if kind == "CronJob":
        return "Job", f"{name}-{fnv32a(f'{kind}/{name}') % 10**8}"
    return None


def pod_name(kind: str, name: str, position: int, template: str = "", indexed: bool = False) -> str:
    """The name of the workload's pod at ``position`` (0 for the first it creates);
    ``template``: text that stands for the pod template (a Deployment's hash is made from it);
    ``indexed``: a Job (or a CronJob's) whose ``completionMode`` is ``Indexed``, whose pod
    at ``position`` has that completion index.

    >>> pod_name("StatefulSet", "db", 2), pod_name("Pod", "one", 0)
    ('db-2', 'one')
    """
    seed = f"{kind}/{name}/{position}"
    if kind == "StatefulSet":
        return f"{name}-{position}"
    if kind == "Pod":
        return name
    made = controller_object(kind, name, template)
    owner = name if made is None else made[1]
    return generate_name(_generate_prefix(owner, position, indexed), seed)


def pod_name_admitted(
    kind: str, name: str, position: int, template: str = "", indexed: bool = False
) -> str:
    """The name a mutating admission plugin's refusal quotes (admission.NewForbidden's
    extractResourceName): the pod's ``generateName`` whole, as the API server generates the
    name only after the mutating plugins ran; a StatefulSet's and a bare Pod's own name.

    >>> pod_name_admitted("DaemonSet", "agent", 0), pod_name_admitted("StatefulSet", "db", 1)
    ('agent-', 'db-1')
    """
    if kind in ("StatefulSet", "Pod"):
        return pod_name(kind, name, position, template, indexed)
    made = controller_object(kind, name, template)
    return _generate_prefix(name if made is None else made[1], position, indexed)


def _generate_prefix(owner: str, position: int, indexed: bool) -> str:
    """The ``generateName`` the controller gives: ``<owner>-`` (controller_utils.go
    ``getPodsPrefix``), or an indexed Job's ``podGenerateNameWithIndex``."""
    if not indexed:
        return f"{owner}-"
    index = f"-{position}-"
    prefix = f"{owner}{index}"
    if len(prefix) > MAX_GENERATED_NAME_LENGTH:
        prefix = prefix[: MAX_GENERATED_NAME_LENGTH - len(index)] + index
    return prefix


def generate_name(prefix: str, seed: str) -> str:
    """SimpleNameGenerator.GenerateName: ``prefix`` cut to
    :data:`MAX_GENERATED_NAME_LENGTH`, then the random characters (drawn from ``seed``).

    >>> len(generate_name("x" * 70 + "-", "seed"))
    63
    """
    return prefix[:MAX_GENERATED_NAME_LENGTH] + _random_part(seed)
