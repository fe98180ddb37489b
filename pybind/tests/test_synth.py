"""ms.synth: synthetic traces that read back as configured."""

import hashlib

import pyarrow.parquet as pq
import pytest

import macroscope as ms


def test_pajé_trace_reads_back(tmp_path):
    path = tmp_path / "synth.trace"
    info = ms.synth(path, sites=2, clusters=2, machines=3, cores=4, events=20_000, seed=3,
                    states={"Run": 3, "Wait": 1})
    assert info["format"] == "paje" and info["cores"] == 48
    assert info["containers"] == 2 * (1 + 2 * (1 + 3 * (1 + 4)))
    assert info["bytes"] == path.stat().st_size
    trace = ms.read_paje(path)
    containers = trace.containers
    assert len(containers) == info["containers"]
    assert set(containers.type) == {"Site", "Cluster", "Machine", "Core"}
    assert "site-1/cluster-0/machine-2/core-3" in set(containers.path)
    states = trace.states
    assert len(states) == info["states"]
    assert trace.start == 0 and trace.end == pytest.approx(info["duration"])
    # Weights 3:1 -> Run takes about 3/4 of the time.
    share = states.groupby("value", observed=True).duration.sum() / states.duration.sum()
    assert share["Run"] == pytest.approx(0.75, abs=0.01)


def test_same_seed_same_bytes(tmp_path):
    digests = []
    for name, seed in (("a", 5), ("b", 5), ("c", 6)):
        path = tmp_path / f"{name}.trace"
        ms.synth(path, sites=1, clusters=2, machines=2, cores=2, events=5_000, seed=seed)
        digests.append(hashlib.sha256(path.read_bytes()).hexdigest())
    assert digests[0] == digests[1] != digests[2]


def test_anomaly_in_parquet_table(tmp_path):
    path = tmp_path / "synth.parquet"
    info = ms.synth(path, sites=2, clusters=2, machines=2, cores=4, events=200_000, seed=9,
                    states={"A": 1, "B": 1},
                    anomalies=[{"level": "cluster", "at": [1, 1], "weights": {"B": 3}, "start": 0.5}])
    assert info["format"] == "parquet"
    df = pq.read_table(path).to_pandas()
    assert len(df) == info["states"]
    assert list(df.columns) == ["resource", "site", "cluster", "machine", "core", "state",
                                "start", "end", "start_ns", "end_ns"]
    half = info["duration"] / 2
    late = df[df.start >= half]

    def share_b(rows):
        d = rows.end - rows.start
        return d[rows.state == "B"].sum() / d.sum()

    anomalous = late[(late.site == 1) & (late.cluster == 1)]
    assert anomalous.resource.str.startswith("site-1/cluster-1/").all()
    assert share_b(anomalous) == pytest.approx(0.75, abs=0.02)
    assert share_b(late[late.site == 0]) == pytest.approx(0.5, abs=0.02)
    assert share_b(df[(df.end <= half) & (df.site == 1) & (df.cluster == 1)]) == pytest.approx(0.5, abs=0.02)


@pytest.mark.parametrize("kwargs, param", [
    ({"sites": 0}, "sites"),
    ({"states": {"A": -1}}, "states"),
    ({"anomalies": [{"level": "rack", "at": [0], "weights": {"Idle": 1}}]}, "level"),
    ({"anomalies": [{"level": "site", "at": [7], "weights": {"Idle": 1}}]}, "anomalies"),
    ({"mean": float("nan")}, "mean"),
    ({"format": "otf2"}, "format"),
])
def test_bad_arguments(tmp_path, kwargs, param):
    with pytest.raises(ms.InvalidArgumentError) as err:
        ms.synth(tmp_path / "x.trace", events=100, **kwargs)
    assert err.value.param == param
    assert not (tmp_path / "x.trace").exists()
