"""Expected values of an XSpace file, decoded independently of the Go
reader: with the protobuf package and a descriptor of xplane.proto built
here (tsl/profiler/protobuf/xplane.proto, the fields the expectations
need), applying the rules of xprof's trace viewer
(xplane_to_trace_container.cc): the planes shown, the lines and events
left out, the name of an event.

    python3 expect.py FILE.xplane.pb > FILE.expected.json

Prints {"states": n, "lines": {"plane/line": count}, "names": {name:
[count, total ns]}}, times rounded to the nearest nanosecond from the
exact picoseconds (halves up).
"""
import json
import sys

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

T = descriptor_pb2.FieldDescriptorProto


def xspace_class():
    fd = descriptor_pb2.FileDescriptorProto(name="xplane_expect.proto", package="xp", syntax="proto3")

    def message(name, fields, parent=None):
        m = (parent.nested_type if parent else fd.message_type).add(name=name)
        for name, number, typ, repeated, type_name, oneof in fields:
            f = m.field.add(name=name, number=number, type=typ,
                            label=T.LABEL_REPEATED if repeated else T.LABEL_OPTIONAL)
            if type_name:
                f.type_name = type_name
            if oneof is not None:
                f.oneof_index = oneof
        return m

    message("XSpace", [("planes", 1, T.TYPE_MESSAGE, True, ".xp.XPlane", None),
                       ("errors", 2, T.TYPE_STRING, True, None, None),
                       ("warnings", 3, T.TYPE_STRING, True, None, None),
                       ("hostnames", 4, T.TYPE_STRING, True, None, None)])
    plane = message("XPlane", [("id", 1, T.TYPE_INT64, False, None, None),
                               ("name", 2, T.TYPE_STRING, False, None, None),
                               ("lines", 3, T.TYPE_MESSAGE, True, ".xp.XLine", None),
                               ("event_metadata", 4, T.TYPE_MESSAGE, True, ".xp.XPlane.EventMetadataEntry", None),
                               ("stat_metadata", 5, T.TYPE_MESSAGE, True, ".xp.XPlane.StatMetadataEntry", None)])
    for entry, value in (("EventMetadataEntry", ".xp.XEventMetadata"), ("StatMetadataEntry", ".xp.XStatMetadata")):
        e = message(entry, [("key", 1, T.TYPE_INT64, False, None, None),
                            ("value", 2, T.TYPE_MESSAGE, False, value, None)], parent=plane)
        e.options.map_entry = True
    message("XLine", [("id", 1, T.TYPE_INT64, False, None, None),
                      ("display_id", 10, T.TYPE_INT64, False, None, None),
                      ("name", 2, T.TYPE_STRING, False, None, None),
                      ("display_name", 11, T.TYPE_STRING, False, None, None),
                      ("timestamp_ns", 3, T.TYPE_INT64, False, None, None),
                      ("events", 4, T.TYPE_MESSAGE, True, ".xp.XEvent", None)])
    event = message("XEvent", [("metadata_id", 1, T.TYPE_INT64, False, None, None),
                               ("offset_ps", 2, T.TYPE_INT64, False, None, 0),
                               ("num_occurrences", 5, T.TYPE_INT64, False, None, 0),
                               ("duration_ps", 3, T.TYPE_INT64, False, None, None),
                               ("stats", 4, T.TYPE_MESSAGE, True, ".xp.XStat", None)])
    event.oneof_decl.add(name="data")
    stat = message("XStat", [("metadata_id", 1, T.TYPE_INT64, False, None, None),
                             ("str_value", 5, T.TYPE_STRING, False, None, 0),
                             ("ref_value", 7, T.TYPE_UINT64, False, None, 0)])
    stat.oneof_decl.add(name="value")
    message("XEventMetadata", [("id", 1, T.TYPE_INT64, False, None, None),
                               ("name", 2, T.TYPE_STRING, False, None, None),
                               ("display_name", 4, T.TYPE_STRING, False, None, None),
                               ("stats", 5, T.TYPE_MESSAGE, True, ".xp.XStat", None)])
    message("XStatMetadata", [("id", 1, T.TYPE_INT64, False, None, None),
                              ("name", 2, T.TYPE_STRING, False, None, None)])
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("xp.XSpace"))


INTERNAL = {"MemoryAllocation", "MemoryDeallocation", "PrefetchProduce", "PrefetchConsume",
            "ParallelInterleaveProduce", "ParallelInterleaveConsume", "ParallelInterleaveInitializeInput",
            "ParallelMapProduce", "ParallelMapConsume", "MapAndBatchProduce", "MapAndBatchConsume",
            "ParseExampleProduce", "ParseExampleConsume"}


def ns(ps):
    return (ps + 500) // 1000


def expect(data):
    space = xspace_class()()
    space.ParseFromString(data)
    host = sorted((p for p in space.planes if p.name.startswith("/host:CPU")), key=lambda p: p.name)
    gpu = [p for p in space.planes if p.name.startswith("/device:GPU:")]
    tpu = [p for p in space.planes if p.name.startswith("/device:TPU:")]
    custom = [p for p in space.planes if p.name.startswith("/device:CUSTOM:")]
    states, lines, names = 0, {}, {}
    for plane in host + (gpu or tpu) + custom:
        step_ids = [k for k, v in plane.stat_metadata.items() if v.name == "step_name"]
        step_id = min(step_ids) if step_ids else None

        def step_name(stats):
            found = ""
            for s in stats:
                if step_id is not None and s.metadata_id == step_id:
                    which = s.WhichOneof("value")
                    if which == "str_value":
                        found = s.str_value or found
                    elif which == "ref_value":
                        found = plane.stat_metadata[s.ref_value].name if s.ref_value in plane.stat_metadata else found
            return found

        for line in plane.lines:
            if not line.events or line.name == "_counters_" or line.name.startswith("counters_"):
                continue
            key = plane.name + "/" + (line.display_name or line.name)
            for e in line.events:
                if e.WhichOneof("data") == "num_occurrences":
                    continue
                meta = plane.event_metadata[e.metadata_id] if e.metadata_id in plane.event_metadata else None
                if meta is not None and meta.name in INTERNAL:
                    continue
                name = (meta.display_name or meta.name) if meta is not None else "event metadata %d" % e.metadata_id
                name = step_name(e.stats) or (step_name(meta.stats) if meta is not None else "") or name
                start = line.timestamp_ns + ns(e.offset_ps)
                end = line.timestamp_ns + ns(e.offset_ps + e.duration_ps)
                states += 1
                lines[key] = lines.get(key, 0) + 1
                count, total = names.get(name, (0, 0))
                names[name] = (count + 1, total + end - start)
    return {"states": states, "lines": lines, "names": {k: list(v) for k, v in names.items()}}


if __name__ == "__main__":
    with open(sys.argv[1], "rb") as f:
        json.dump(expect(f.read()), sys.stdout, indent=1, sort_keys=True, ensure_ascii=False)
        print()
