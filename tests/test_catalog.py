"""The instance-type catalog (gate/inputs/catalog.py), read as Karpenter's KWOK provider
reads it: kubernetes-sigs/karpenter v1.8.3 kwok/cloudprovider/helpers.go
(``InstanceTypeOptions``, ``setDefaultOptions``, ``newInstanceType``, ``parseSizeFromType``,
``parseFamilyFromType``); tests/data/kwok-instance-types.json holds three entries of that
tag's kwok/cloudprovider/instance_types.json, each cut to its first two offerings."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.errors import UsageError
from gate.inputs import catalog as catalog_module
from gate.inputs.catalog import parse_catalog, quantity_text, read_catalog
from gate.inputs.config import Config, load_config, with_catalog
from gate.k8s.quantity import parse_quantity, scheduler_amount
from gate.model.karpenter import Offering, Requirement
from tests.conftest import ROOT
from tests.live import run

NOW = datetime(2026, 8, 16, 10, 1, 0, tzinfo=timezone.utc)
UPSTREAM = ROOT / "tests" / "data" / "kwok-instance-types.json"
ZONE, CAPACITY_TYPE = "topology.kubernetes.io/zone", "karpenter.sh/capacity-type"


def _offering(
    zone: str = "us-east-1a", capacity_type: str = "on-demand", **more: Any
) -> dict[str, Any]:
    return {
        "Price": 0.192,
        "Available": True,
        "Requirements": [
            {"key": CAPACITY_TYPE, "operator": "In", "values": [capacity_type]},
            {"key": ZONE, "operator": "In", "values": [zone]},
        ],
        **more,
    }


def _entry(name: str = "m7i.xlarge", **changes: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": name,
        "offerings": [_offering()],
        "architecture": "amd64",
        "operatingSystems": ["linux"],
        "resources": {"cpu": "4", "memory": "16Gi"},
    }
    entry.update(changes)
    return entry


def _parse(*entries: Any) -> Any:
    return parse_catalog(json.dumps(list(entries)).encode(), "types.json")


def test_kwok_s_own_entries_are_read_as_kwok_reads_them() -> None:
    catalog = read_catalog(str(UPSTREAM))
    assert catalog.source == str(UPSTREAM) and not catalog.from_cluster
    first = catalog.types[0]
    assert first.name == "c-1x-amd64-linux"
    assert first.labels == {
        "node.kubernetes.io/instance-type": "c-1x-amd64-linux",
        "kubernetes.io/arch": "amd64",
        "karpenter.kwok.sh/instance-size": "1",
        "karpenter.kwok.sh/instance-family": "c",
        "karpenter.kwok.sh/instance-cpu": "1",
        "karpenter.kwok.sh/instance-memory": "2Gi",
    }
    assert first.capacity == {
        "cpu": 1000,
        "memory": 2 * 2**30,
        "ephemeral-storage": 20 * 2**30,
        "pods": 16,
    }
    assert first.overhead == {"cpu": 100, "memory": 10 * 2**20}
    assert first.offerings[0] == Offering(
        zone="test-zone-a",
        capacity_type="spot",
        price=0.019003238553599998,
        requirements=(
            Requirement(CAPACITY_TYPE, "In", ("spot",)),
            Requirement(ZONE, "In", ("test-zone-a",)),
        ),
    )
    assert [t.operating_systems for t in catalog.types] == [("linux",), ("linux",), ("windows",)]


@pytest.mark.parametrize(
    ("name", "cpu", "size", "family"),
    [
        pytest.param("m7i.2xlarge", "8", "2xlarge", "m7i", id="aws"),
        pytest.param("c7g.metal", "64", "metal", "c7g", id="aws-metal"),
        pytest.param("n2-standard-8", "8", "8", "n2", id="gcp"),
        pytest.param("Standard_D4s_v5", "4", "4", "S", id="azure-first-character"),
        pytest.param("c-4x-amd64-linux", "4", "4", "c", id="kwok-generic"),
    ],
)
def test_size_and_family_labels_follow_helpers_go(
    name: str, cpu: str, size: str, family: str
) -> None:
    labels = _parse(_entry(name, resources={"cpu": cpu, "memory": "8Gi"})).types[0].labels
    assert (
        labels["karpenter.kwok.sh/instance-size"],
        labels["karpenter.kwok.sh/instance-family"],
    ) == (
        size,
        family,
    )


def test_pods_default_to_110_and_an_offering_said_unavailable_stays_so() -> None:
    """cloudprovider/types.go: the scheduler keeps only available offerings; KWOK's reader
    would mark it available, a gate does not."""
    (kind,) = _parse(
        _entry(
            offerings=[
                _offering(Available=False),
                _offering("us-east-1b", "spot"),
                _offering("us-east-1c", Available=None),
            ]
        )
    ).types
    assert kind.capacity["pods"] == 110
    assert [(o.zone, o.capacity_type, o.available) for o in kind.offerings] == [
        ("us-east-1a", "on-demand", False),
        ("us-east-1b", "spot", True),
        ("us-east-1c", "on-demand", True),
    ]


def test_an_overhead_replaces_kwok_s() -> None:
    (kind,) = _parse(
        _entry(overhead={"cpu": "80m", "memory": "893Mi", "ephemeral-storage": "1Gi"})
    ).types
    assert kind.overhead == {"cpu": 80, "memory": 893 * 2**20, "ephemeral-storage": 2**30}


def test_keys_are_read_as_go_s_decoder_reads_them() -> None:
    """encoding/json: a key matches its field whatever its case, unknown keys are ignored,
    and the last of a repeated key wins."""
    text = (
        '[{"NAME": "a", "name": "t1", "Architecture": "arm64", "operatingsystems": ["linux"],'
        ' "resources": {"cpu": 2, "memory": "4Gi", "nvidia.com/gpu": "1"}, "comment": 1,'
        ' "offerings": [{"price": 1.5, "requirements": [{"key": "topology.kubernetes.io/zone",'
        ' "operator": "In", "values": ["z"]}, {"key": "karpenter.sh/capacity-type",'
        ' "operator": "In", "values": ["spot"]}]}]}]'
    )
    (kind,) = parse_catalog(text.encode(), "t.json").types
    assert (kind.name, kind.labels["kubernetes.io/arch"]) == ("t1", "arm64")
    assert kind.capacity == {"cpu": 2000, "memory": 4 * 2**30, "nvidia.com/gpu": 1, "pods": 110}
    assert (kind.offerings[0].price, kind.offerings[0].zone) == (1.5, "z")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("{", "types.json: not JSON: ", id="not-json"),
        pytest.param(
            '{"name": "a"}', "types.json: not a JSON array of instance types", id="not-an-array"
        ),
        pytest.param("[]", "types.json: no instance type", id="empty"),
        pytest.param(
            json.dumps(
                [
                    _entry("a"),
                    _entry("b"),
                    _entry("c"),
                    _entry("d", resources={"cpu": "4 cores", "memory": "1Gi"}),
                ]
            ),
            'types.json: [3].resources.cpu: invalid quantity "4 cores"',
            id="bad-quantity",
        ),
        pytest.param(
            json.dumps([_entry(resources={"cpu": "-4", "memory": "1Gi"})]),
            'types.json: [0].resources.cpu: quantity "-4" must be greater than or equal to 0',
            id="negative-quantity",
        ),
        pytest.param(
            json.dumps([_entry(resources={"memory": "1Gi"})]),
            "types.json: [0].resources.cpu: missing",
            id="no-cpu",
        ),
        pytest.param(
            json.dumps([_entry("a"), _entry("b"), _entry("a")]),
            "types.json: [2].name: 'a' is given twice (also [0])",
            id="duplicate-name",
        ),
        pytest.param(json.dumps([_entry(name="")]), "types.json: [0].name: empty", id="empty-name"),
        pytest.param(
            json.dumps([{**_entry(), "name": 7}]),
            "types.json: [0].name: not a string: 7",
            id="name-number",
        ),
        pytest.param(
            json.dumps([_entry(offerings=[])]),
            "types.json: [0].offerings: missing: a type with no offering cannot be launched",
            id="no-offering",
        ),
        pytest.param(
            json.dumps([_entry(offerings=[_offering(Requirements=[])])]),
            "types.json: [0].offerings[0].Requirements: an offering names one "
            "topology.kubernetes.io/zone (In, one value)",
            id="offering-without-zone",
        ),
        pytest.param(
            json.dumps([_entry(offerings=[_offering(Price="cheap")])]),
            'types.json: [0].offerings[0].Price: not a number: "cheap"',
            id="price-text",
        ),
        pytest.param(
            json.dumps([_entry(offerings=[_offering(Price=10**400)])]),
            "types.json: [0].offerings[0].Price: not a number: 100000000000000000000000000",
            id="price-past-float64",
        ),
        pytest.param(
            json.dumps(
                [
                    _entry(
                        offerings=[
                            _offering(
                                Requirements=[{"key": ZONE, "operator": "Equals", "values": ["z"]}]
                            )
                        ]
                    )
                ]
            ),
            "types.json: [0].offerings[0].Requirements[0].operator: 'Equals' is not one of",
            id="bad-operator",
        ),
        pytest.param(
            json.dumps([_entry(operatingSystems=[])]),
            "types.json: [0].operatingSystems: missing",
            id="no-operating-system",
        ),
        pytest.param(
            json.dumps([_entry(overhead=["cpu"])]),
            "types.json: [0].overhead: not an object",
            id="overhead-not-an-object",
        ),
        pytest.param("[1]", "types.json: [0]: not an object", id="entry-not-an-object"),
        pytest.param(
            json.dumps([_entry(resources={"cpu": "1", "memory": "1Gi", "a\nb": "x"})]),
            'types.json: [0].resources["a\\nb"]: invalid quantity "x"',
            id="resource-name-with-a-newline",
        ),
        pytest.param(
            b'["\xff"]', "types.json: not UTF-8: invalid start byte at byte 2", id="not-utf8"
        ),
    ],
)
def test_a_bad_catalog_is_one_line(text: str | bytes, message: str) -> None:
    with pytest.raises(UsageError) as raised:
        parse_catalog(text if isinstance(text, bytes) else text.encode(), "types.json")
    assert str(raised.value).startswith(message)
    assert "\n" not in str(raised.value)


def test_a_large_file_is_refused_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(catalog_module, "MAX_CATALOG_BYTES", 100)
    path = tmp_path / "types.json"
    path.write_text(json.dumps([_entry()] * 3), encoding="utf-8")
    with pytest.raises(UsageError, match=r"types.json: longer than 0 MiB: not read$"):
        read_catalog(str(path))
    with pytest.raises(UsageError, match=r"^nope.json: cannot read the instance types: "):
        read_catalog("nope.json")


@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"], ids=["plain", "after a byte order mark"])
def test_a_catalog_of_more_types_than_it_may_hold_is_refused_naming_the_count(
    monkeypatch: pytest.MonkeyPatch, bom: bytes
) -> None:
    """Each type is asked of every pool and every new node (100,000 took 16-44 s and 744 MB
    for 3 workloads): past the cap, the count is refused before any type is decoded."""
    monkeypatch.setattr(catalog_module, "MAX_CATALOG_TYPES", 2)
    two = [_entry("m7i.xlarge"), _entry("m7i.2xlarge")]
    assert len(parse_catalog(bom + json.dumps(two).encode(), "types.json").types) == 2
    three = bom + json.dumps([*two, _entry("m7i.4xlarge")]).encode()
    with pytest.raises(UsageError) as raised:
        parse_catalog(three, "types.json")
    assert str(raised.value) == "types.json: 3 instance types, more than the 2 a catalog may hold"


def test_the_configuration_names_a_catalog_relative_to_itself(tmp_path: Path) -> None:
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "types.json").write_text(json.dumps([_entry()]), encoding="utf-8")
    (tmp_path / ".fitgate.yaml").write_text("autoscaling: {instanceTypes: cfg/types.json}\n")
    below = tmp_path / "a" / "b"
    below.mkdir(parents=True)
    config = with_catalog(load_config(None, below), None)
    assert config.autoscaling.catalog is not None
    assert config.autoscaling.catalog.source == "cfg/types.json"
    assert [t.name for t in config.autoscaling.catalog.types] == ["m7i.xlarge"]


def test_the_flag_wins_over_the_configuration(tmp_path: Path) -> None:
    (tmp_path / ".fitgate.yaml").write_text("autoscaling: {instanceTypes: missing.json}\n")
    config = with_catalog(load_config(None, tmp_path), str(UPSTREAM))
    assert config.autoscaling.catalog is not None
    assert config.autoscaling.catalog.source == str(UPSTREAM)
    assert with_catalog(Config(), None).autoscaling.catalog is None
    with pytest.raises(UsageError) as raised:
        with_catalog(load_config(None, tmp_path), None)
    assert str(raised.value) == (
        ".fitgate.yaml: autoscaling.instanceTypes: missing.json: cannot read the instance "
        "types: No such file or directory"
    )


_DIGITS = st.integers(min_value=0, max_value=10**12)
_SUFFIXES = st.sampled_from(["", "m", "k", "M", "G", "T", "Ki", "Mi", "Gi", "Ti", "e3", "e-3"])


@given(whole=_DIGITS, fraction=st.integers(min_value=0, max_value=999), suffix=_SUFFIXES)
def test_a_quantity_s_text_reads_back_to_its_value(whole: int, fraction: int, suffix: str) -> None:
    """What ``Quantity.String()`` prints parses back to the same value, and the catalog's
    capacity is the scheduler's amount of what was written."""
    written = f"{whole}.{fraction:03d}{suffix}"
    value = parse_quantity(written)
    assert parse_quantity(quantity_text(written)) == value
    entry = _entry(resources={"cpu": written, "memory": written})
    try:
        (kind,) = _parse(entry).types
    except UsageError:  # past the scheduler's int64: refused, never wrapped
        assert value * 1000 > 2**63 - 1
        return
    assert kind.capacity["cpu"] == scheduler_amount("cpu", value)
    assert kind.capacity["memory"] == scheduler_amount("memory", value)
    assert kind.labels["karpenter.kwok.sh/instance-cpu"] == quantity_text(written)


@pytest.mark.parametrize(
    ("types", "code", "said"),
    [
        pytest.param(str(UPSTREAM), 0, "", id="good-catalog"),
        pytest.param("nope.json", 2, "nope.json: cannot read the instance types: ", id="missing"),
    ],
)
def test_check_reads_the_catalog_before_the_snapshot(
    tmp_path: Path, types: str, code: int, said: str
) -> None:
    manifest = tmp_path / "app.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
        "    - {name: c, image: x, resources: {requests: {cpu: 10m}}}\n",
        encoding="utf-8",
    )
    snapshot = ROOT / "fixtures" / "snapshots" / "aks-autoscaled.json"
    argv = ["check", str(manifest), "--snapshot", str(snapshot), "--instance-types", types]
    exit_code, _, err = run(argv, {}, NOW)
    assert exit_code == code, err
    assert said in err and len(err.strip().splitlines()) <= 1


def _nested(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    _nested,
    max_leaves=20,
)
_FIELDS = st.sampled_from(
    ["name", "architecture", "operatingSystems", "resources", "offerings", "overhead"]
)


@given(field=_FIELDS, value=_JSON, offering_field=st.sampled_from(["Price", "Requirements"]))
def test_any_value_anywhere_is_a_catalog_or_one_line(
    field: str, value: Any, offering_field: str
) -> None:
    """Untrusted input: whatever a field holds, the answer is a catalog or a UsageError,
    never a traceback."""
    for entry in (
        _entry(**{field: value}),
        _entry(offerings=[_offering(**{offering_field: value})]),
    ):
        try:
            _parse(entry)
        except UsageError as exc:
            assert "\n" not in str(exc)


@pytest.mark.parametrize(
    ("written", "label"),
    [
        pytest.param('"4"', "4", id="canonical-kept"),
        pytest.param("4", "4", id="json-number"),
        pytest.param('"4000m"', "4", id="millicores-rebuilt"),
        pytest.param('"+4"', "+4", id="sign-kept-as-written"),
        pytest.param('"1.5"', "1500m", id="fraction-in-millis"),
        pytest.param("16.0", "16", id="json-float-rebuilt"),
        pytest.param("1e3", "1e3", id="json-exponent-kept"),
        pytest.param('"65536Mi"', "64Gi", id="binary-rebuilt"),
        pytest.param('"0.5Ki"', "512", id="binary-below-1024-decimal"),
    ],
)
def test_the_cpu_label_is_the_quantity_as_kubernetes_prints_it(written: str, label: str) -> None:
    """helpers.go labels ``instance-cpu`` with ``q.String()`` of the decoded quantity
    (k8s.io/apimachinery quantity.go: ``ParseQuantity`` keeps a canonical text as written,
    ``CanonicalizeBytes`` rebuilds any other)."""
    text = json.dumps([_entry(resources={"cpu": "@", "memory": "1Gi"})]).replace('"@"', written)
    (kind,) = parse_catalog(text.encode(), "t.json").types
    assert kind.labels["karpenter.kwok.sh/instance-cpu"] == label
