#!/usr/bin/env python3
"""Writes the project-authored profiler samples in this folder (README.md describes them).

The traces are synthetic: kernel names, durations and timestamps are made up for these tests, laid out
the way each tool writes its files (docs/trace.md). Every stats/summary file is computed here from the
trace beside it with that tool's aggregation (group by name, sort by total desc, its rounding), so the
C++ ranking must reproduce it independently. Run it from anywhere; it only writes below its own folder:

    python3 tests/data/trace/authored/generate.py

The output is committed; the tests never run this script.
"""
import json
import os
import statistics
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))


def write(rel, text):
    path = os.path.join(HERE, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="") as f:
        f.write(text)


def q(s):
    return '"' + str(s).replace('"', '""') + '"'


def csv_min(s):
    """nsys quoting: only cells holding a comma or a quote are quoted."""
    s = str(s)
    return q(s) if ("," in s or '"' in s) else s


def group(events):
    """[(name, duration)] -> {name: [durations]} in first-seen order."""
    out = {}
    for name, dur in events:
        out.setdefault(name, []).append(dur)
    return out


def ranked(events):
    """Rows (name, durations) sorted the tools' way: total desc, calls desc, name."""
    g = group(events)
    return sorted(g.items(), key=lambda kv: (-sum(kv[1]), -len(kv[1]), kv[0]))


def sample_sd(d):
    return statistics.stdev(d) if len(d) > 1 else 0.0


# --------------------------------------------------------------------------------------------------
# ROCm decode step: one made-up decode step (2 layers' worth of kernels), the same 14 dispatches
# recorded by rocprof v1 and, in another run, by rocprofv3.

SUFFIX = " [clone .kd]"
ROCM_KERNELS = {  # key: (rocprofv3 / cxxabi name, rocprof v1 suffix)
    "fill": ("__amd_rocclr_fillBufferAligned", ".kd"),
    "slot": ("_sbtest_slot_mapping_kernel", ".kd"),
    "norm": ("void sbtest::rms_norm_kernel<__hip_bfloat16, 4>(__hip_bfloat16*, __hip_bfloat16 const*, float, int)",
             SUFFIX),
    "qkv": ("Cijk_Alik_Bljk_HHS_BH_MT64x32x64_MI16x16x1_SBTEST", ".kd"),
    "cache": ("void sbtest::reshape_and_cache_kernel<__hip_bfloat16, 16>(__hip_bfloat16 const*, __hip_bfloat16*, "
              "long const*, int)", SUFFIX),
    "attn": ("void sbtest::paged_attention_decode_kernel<__hip_bfloat16, 128, 16>(float*, __hip_bfloat16 const*, "
             "int const*, int)", SUFFIX),
    "oproj": ("Cijk_Alik_Bljk_HHS_BH_MT32x32x128_MI16x16x1_SBTEST", ".kd"),
    "ar": ("void sbtest::cross_device_reduce_1stage<__hip_bfloat16, 2>(sbtest::RankData*, __hip_bfloat16*, int)",
           SUFFIX),
    "act": ("void sbtest::silu_and_mul_kernel<__hip_bfloat16>(__hip_bfloat16*, __hip_bfloat16 const*, int)", SUFFIX),
    "argmax": ("void sbtest::argmax_kernel<float, 256>(float const*, long*, int)", SUFFIX),
}
# (kernel, duration ns); the durations add up to exactly 100 000 ns.
ROCM_STEP = [("fill", 1000), ("slot", 2000), ("norm", 3000), ("qkv", 10000), ("cache", 2500), ("attn", 10499),
             ("oproj", 8000), ("ar", 12000), ("norm", 3000), ("qkv", 18000), ("act", 4000), ("oproj", 9001),
             ("ar", 14000), ("argmax", 3000)]
ROCM_GAP_NS = 400  # idle time between two dispatches
V1_T0 = 93_600_000_000_000  # CLOCK_BOOTTIME ns (26 h uptime); the first kernel begins at T0 + 1000
V3_T0 = 93_600_050_000_000  # the rocprofv3 run, 50 ms later
PID = 7301
V1_GPU = 1  # gpu-id 1 -> JSON lane 6 + 1


def rocm_schedule(t0):
    out, begin = [], t0 + 1000
    for key, dur in ROCM_STEP:
        out.append((key, begin, begin + dur))
        begin += dur + ROCM_GAP_NS
    return out


def v1_name(key):
    name, suffix = ROCM_KERNELS[key]
    return name + suffix


V1_COLUMNS = ["Index", "KernelName", "gpu-id", "queue-id", "queue-index", "pid", "tid", "grd", "wgr", "lds", "scr",
              "arch_vgpr", "accum_vgpr", "sgpr", "wave_size", "sig", "obj", "DispatchNs", "BeginNs", "EndNs",
              "CompleteNs", "DurationNs"]


def v1_rows():
    rows = []
    for i, (key, begin, end) in enumerate(rocm_schedule(V1_T0)):
        rows.append({"Index": i, "KernelName": v1_name(key), "gpu-id": V1_GPU, "queue-id": 2, "queue-index": i,
                     "pid": PID, "tid": PID, "grd": 256 * (1 + i % 4), "wgr": 256, "lds": 0, "scr": 0,
                     "arch_vgpr": 16, "accum_vgpr": 0, "sgpr": 24, "wave_size": 64, "sig": "0x0",
                     "obj": "0x7e5b00%06x" % (i * 0x140), "DispatchNs": begin - 3000, "BeginNs": begin,
                     "EndNs": end, "CompleteNs": end + 2000, "DurationNs": end - begin})
    return rows


def write_rocprof_v1_decode_step():
    d = "rocprof_v1/decode_step/"
    rows = v1_rows()
    quoted = {"KernelName", "sig", "obj"}
    # SQLite flavour (--stats --timestamp on): quoted header, quoted strings, DurationNs last.
    text = ",".join(q(c) for c in V1_COLUMNS) + "\n"
    for r in rows:
        text += ",".join(q(r[c]) if c in quoted else str(r[c]) for c in V1_COLUMNS) + "\n"
    write(d + "results.csv", text)
    # Plain flavour (--timestamp on alone): unquoted header, sig/obj unquoted, no DurationNs; first 6 rows.
    cols = V1_COLUMNS[:-1]
    text = ",".join(cols) + "\n"
    for r in rows[:6]:
        text += ",".join(q(r[c]) if c == "KernelName" else str(r[c]) for c in cols) + "\n"
    write(d + "results_timestamp_only.csv", text)
    # results.stats.csv: AverageNs = integer division, Percentage = Python float repr.
    events = [(r["KernelName"], r["DurationNs"]) for r in rows]
    grand = sum(d_ for _, d_ in events)
    text = '"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n'
    for name, durs in ranked(events):
        total = sum(durs)
        text += "%s,%d,%d,%d,%r\n" % (q(name), len(durs), total, total // len(durs), total * 100.0 / grand)
    write(d + "results.stats.csv", text)
    # results.json, sqlitedb.py style: pid/tid ints, every other value a string; first 8 dispatches.
    lanes = [{"args": {"name": "COPY"}, "ph": "M", "pid": 1, "name": "process_name", "sort_index": 0},
             {"args": {"name": "GPU%d" % V1_GPU}, "ph": "M", "pid": 6 + V1_GPU, "name": "process_name",
              "sort_index": 1},
             {"args": {"name": "GPU Barriers%d" % V1_GPU}, "ph": "M", "pid": 518 + V1_GPU, "name": "process_name",
              "sort_index": 2}]
    parts = ['{ "traceEvents":[{}\n'] + ["," + json.dumps(e, separators=(",", ":")) + "\n" for e in lanes]
    for r in rows[:8]:
        head = {"ph": "X", "name": r["KernelName"], "pid": 6 + V1_GPU, "tid": PID, "ts": str(r["BeginNs"] // 1000),
                "dur": str(r["DurationNs"] // 1000)}
        args = {c: str(r[c]) for c in V1_COLUMNS if c != "Index"}
        body = json.dumps(head, separators=(",", ":"))[:-1]
        body += ',\n  "args":{\n' + ",\n".join("    %s:%s" % (json.dumps(k), json.dumps(v)) for k, v in args.items())
        parts.append("," + body + "\n  }\n}\n")
    parts.append("],\n\"otherData\": {\n    \"CMD\": \"sbtest\"\n  }\n}\n")
    write(d + "results.json", "".join(parts))


V3_KERNEL_COLUMNS = ["Kind", "Agent_Id", "Queue_Id", "Stream_Id", "Thread_Id", "Dispatch_Id", "Kernel_Id",
                     "Kernel_Name", "Correlation_Id", "Start_Timestamp", "End_Timestamp", "LDS_Block_Size",
                     "Scratch_Size", "VGPR_Count", "Accum_VGPR_Count", "SGPR_Count", "Workgroup_Size_X",
                     "Workgroup_Size_Y", "Workgroup_Size_Z", "Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z"]
V3_COPY_COLUMNS = ["Kind", "Direction", "Stream_Id", "Source_Agent_Id", "Destination_Agent_Id", "Correlation_Id",
                   "Start_Timestamp", "End_Timestamp"]
V3_AGENT = 3  # node id: two CPU sockets (Agent 0, 1) come first


def v3_float(v):
    return "%.6f" % v if v > 0.01 else "%.8e" % v


def v3_percent(v):
    if v >= 1:
        return "%.2f" % v
    return "%.4f" % v if v > 0.01 else "%.3e" % v


def v3_stats(events):
    grand = sum(d for _, d in events)
    text = '"Name","Calls","TotalDurationNs","AverageNs","Percentage","MinNs","MaxNs","StdDev"\n'
    for name, durs in ranked(events):
        total = sum(durs)
        text += "%s,%d,%d,%s,%s,%d,%d,%s\n" % (q(name), len(durs), total, v3_float(total / len(durs)),
                                               v3_percent(total * 100.0 / grand), min(durs), max(durs),
                                               v3_float(sample_sd(durs)))
    return text


def write_rocprofv3_decode_step():
    d = "rocprofv3/decode_step/sbtest-node7/%d_" % PID
    kernel_ids = {k: 30 + i for i, k in enumerate(ROCM_KERNELS)}
    text = ",".join(q(c) for c in V3_KERNEL_COLUMNS) + "\n"
    events = []
    for i, (key, begin, end) in enumerate(rocm_schedule(V3_T0)):
        name = ROCM_KERNELS[key][0]
        cells = [q("KERNEL_DISPATCH"), q("Agent %d" % V3_AGENT), 2, 5, PID, 400 + i, kernel_ids[key], q(name),
                 700 + i, begin, end, 0, 0, 16, 0, 24, 256, 1, 1, 256 * (1 + i % 4), 1, 1]
        text += ",".join(str(c) for c in cells) + "\n"
        events.append((name, end - begin))
    write(d + "kernel_trace.csv", text)
    write(d + "kernel_stats.csv", v3_stats(events))
    last_end = rocm_schedule(V3_T0)[-1][2]
    copies = [("MEMORY_COPY_HOST_TO_DEVICE", 0, V3_AGENT, 690, V3_T0 - 20000, 5000),
              ("MEMORY_COPY_HOST_TO_DEVICE", 0, V3_AGENT, 691, V3_T0 - 12000, 4000),
              ("MEMORY_COPY_DEVICE_TO_HOST", V3_AGENT, 1, 714, last_end + 1000, 6000)]
    text = ",".join(q(c) for c in V3_COPY_COLUMNS) + "\n"
    for direction, src, dst, corr, start, dur in copies:
        cells = [q("MEMORY_COPY"), q(direction), 5, q("Agent %d" % src), q("Agent %d" % dst), corr, start,
                 start + dur]
        text += ",".join(str(c) for c in cells) + "\n"
    write(d + "memory_copy_trace.csv", text)
    write(d + "memory_copy_stats.csv", v3_stats([(c[0], c[5]) for c in copies]))
    # Trimmed agent table (the real one has ~50 columns): only there to be recognised as no trace.
    cols = ["Node_Id", "Logical_Node_Id", "Agent_Type", "Cpu_Cores_Count", "Simd_Count", "Wave_Front_Size",
            "Cu_Count", "Gfx_Target_Version", "Name", "Product_Name"]
    rows = [[0, 0, q("CPU"), 32, 0, 0, 0, 0, q("SBTEST-CPU"), q("Synthetic CPU")],
            [1, 1, q("CPU"), 32, 0, 0, 0, 0, q("SBTEST-CPU"), q("Synthetic CPU")],
            [V3_AGENT, 2, q("GPU"), 0, 1216, 64, 304, 90402, q("gfx942"), q("Synthetic GPU")]]
    write(d + "agent_info.csv",
          ",".join(q(c) for c in cols) + "\n" + "".join(",".join(str(c) for c in r) + "\n" for r in rows))


def write_rocprofv3_layout_2024():
    """The 2024 layouts: 18-column kernel trace with numeric agents and no Stream_Id, 7-column copies."""
    d = "rocprofv3/layout_2024/"
    cols = ["Kind", "Agent_Id", "Queue_Id", "Thread_Id", "Dispatch_Id", "Kernel_Id", "Kernel_Name",
            "Correlation_Id", "Start_Timestamp", "End_Timestamp", "Private_Segment_Size", "Group_Segment_Size",
            "Workgroup_Size_X", "Workgroup_Size_Y", "Workgroup_Size_Z", "Grid_Size_X", "Grid_Size_Y",
            "Grid_Size_Z"]
    scale = "void scale_kernel<float>(float*, float const*, float, int)"
    offset = "offset_kernel(float*, float, int)"
    dispatches = [(scale, 1, 48000), (scale, 2, 50500), (offset, 3, 30000), (scale, 1, 49250), (scale, 2, 51001)]
    t0 = 4_200_000_000_100_000
    text = ",".join(q(c) for c in cols) + "\n"
    events, begin = [], t0
    for i, (name, queue, dur) in enumerate(dispatches):
        cells = [q("KERNEL_DISPATCH"), 1, queue, 812, i + 1, 7 if name == scale else 9, q(name), 1200 + i, begin,
                 begin + dur, 0, 0, 64, 1, 1, 4096, 1, 1]
        text += ",".join(str(c) for c in cells) + "\n"
        events.append((name, dur))
        begin += dur + 1500
    write(d + "kernel_trace.csv", text)
    write(d + "kernel_stats.csv", v3_stats(events))
    text = ",".join(q(c) for c in ["Kind", "Direction", "Source_Agent_Id", "Destination_Agent_Id", "Correlation_Id",
                                   "Start_Timestamp", "End_Timestamp"]) + "\n"
    text += '"MEMORY_COPY","MEMORY_COPY_HOST_TO_DEVICE",0,1,0,%d,%d\n' % (t0 - 90000, t0 - 40000)
    # The 2024 writer left the file without a final newline.
    text += '"MEMORY_COPY","MEMORY_COPY_DEVICE_TO_HOST",1,0,0,%d,%d' % (begin + 2000, begin + 2000 + 65000)
    write(d + "memory_copy_trace.csv", text)


# --------------------------------------------------------------------------------------------------
# Older rocprof v1 --hip-trace --stats run of a small HIP program: results.json with string pids and
# lanes (copies on "1", HIP API on "2", kernels on 6 + dev-id), its three stats files, and a
# counter-collection results file without timestamps.

SAXPY = "saxpy_kernel(float, float const*, float*, int)"
SAXPY_DEV = 2
SAXPY_PID = 2610


def write_rocprof_v1_hip_saxpy():
    d = "rocprof_v1/hip_saxpy/"
    t = 500_000_000_000_000  # CLOCK_BOOTTIME ns
    api = []  # (name, begin, dur)

    def call(name, dur, gap=20_000):
        nonlocal t
        api.append((name, t, dur))
        t += dur + gap
        return api[-1]

    call("hipMalloc", 812_000_000)  # first call also creates the context
    call("hipMalloc", 101_234)
    copies, kernels = [], []
    for dur in (3_200_123, 3_199_877):
        c = call("hipMemcpy", dur + 41_000)
        copies.append(("CopyHostToDevice", c[1] + 20_000, dur))
    for dur in (250_321, 249_679):
        call("__hipPushCallConfiguration", 310)
        call("__hipPopCallConfiguration", 290)
        c = call("hipLaunchKernel", 9_000)
        kernels.append((SAXPY, c[1] + 30_000, dur))
    call("hipDeviceSynchronize", 560_000)
    c = call("hipMemcpy", 3_500_000 + 41_000)
    copies.append(("CopyDeviceToHost", c[1] + 20_000, 3_500_000))
    call("hipFree", 1_200_000)
    call("hipFree", 1_100_000)

    parts = ['{ "traceEvents":[{}\n']
    for i, (lane, name) in enumerate([(2, "CPU HIP API"), (1, "COPY"), (6 + SAXPY_DEV, "GPU%d" % SAXPY_DEV)]):
        parts.append(',{"args":{"name":"%s"},"ph":"M","pid":%d,"name":"process_name","sort_index":%d}\n'
                     % (name, lane, i))

    def event(name, lane, tid, begin, dur, extra):
        args = {"BeginNs": str(begin), "EndNs": str(begin + dur)}
        args.update(extra)
        args.update({"Name": name, "pid": str(SAXPY_PID), "tid": str(SAXPY_PID), "Data": "", "DurationNs": str(dur)})
        head = '{"ph":"X","name":%s,"pid":"%d","tid":"%s","ts":"%d","dur":"%d",' % (
            json.dumps(name), lane, tid, begin // 1000, dur // 1000)
        body = ",\n".join("    %s:%s" % (json.dumps(k), json.dumps(v)) for k, v in args.items())
        return "," + head + '\n  "args":{\n' + body + "\n  }\n}\n"

    for name, begin, dur in copies:
        parts.append(event(name, 1, "0", begin, dur, {"dev-id": str(SAXPY_DEV), "queue-id": "0"}))
    for name, begin, dur in api:
        parts.append(event(name, 2, str(SAXPY_PID), begin, dur, {}))
    for name, begin, dur in kernels:
        parts.append(event(name, 6 + SAXPY_DEV, "1", begin, dur,
                           {"dev-id": str(SAXPY_DEV), "queue-id": "0", "stream-id": "1"}))
    parts.append(',{"ts":%d,"ph":"t","cat":"DataFlow","id":3,"pid":%d,"tid":1,"name":"dep"}\n'
                 % (kernels[0][1] // 1000, 6 + SAXPY_DEV))
    parts.append('],\n"otherData": {\n    "CMD": "sbtest-saxpy"\n  }\n}\n')
    write(d + "results.json", "".join(parts))

    def stats(events):
        grand = sum(x for _, x in events)
        text = '"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n'
        for name, durs in ranked(events):
            total = sum(durs)
            text += "%s,%d,%d,%d,%r\n" % (q(name), len(durs), total, total // len(durs), total * 100.0 / grand)
        return text

    write(d + "results.stats.csv", stats([(n, x) for n, _, x in kernels]))
    write(d + "results.copy_stats.csv", stats([(n, x) for n, _, x in copies]))
    write(d + "results.hip_stats.csv", stats([(n, x) for n, _, x in api]))
    # rocprof -i input.txt (counters, no --timestamp/--stats): no BeginNs/EndNs at all.
    write(d + "input.txt", "pmc : GPUBusy Wavefronts\ngpu: %d\nkernel: saxpy_kernel\n" % SAXPY_DEV)
    cols = ["Index", "KernelName", "gpu-id", "queue-id", "queue-index", "pid", "tid", "grd", "wgr", "lds", "scr",
            "arch_vgpr", "accum_vgpr", "sgpr", "wave_size", "sig", "obj", "GPUBusy", "Wavefronts"]
    text = ",".join(cols) + "\n"
    for i in range(2):
        text += '%d,"%s [clone .kd]",%d,0,%d,%d,%d,1048576,256,0,0,8,0,16,64,0x0,0x7f10c0%06x,%s,%s\n' % (
            i, SAXPY, SAXPY_DEV, i, SAXPY_PID, SAXPY_PID, 0x900 + i * 0x40, "100.0000000000", "16384.0000000000")
    write(d + "output_saxpy.csv", text)


# --------------------------------------------------------------------------------------------------
# NVIDIA decode step, TP rank 1 on device 1: the same 18 GPU operations seen by nsys (session ns) and by
# the PyTorch profiler (Unix time; the nsys session started at SESSION_UNIX_NS). Each op:
# (kind, nsys name, torch name, duration ns, correlation id, bytes). The 11 kernels of the CUDA graph
# share correlation id 9010.

NSYS_DEVICE = 1
NSYS_STREAM = 13
SESSION_UNIX_NS = 1_760_000_100_000_000_000
TORCH_BASE_NS = 1_760_000_000_000_000_000
GRAPH = 9010
NV_OPS = [
    ("memcpy", "[CUDA memcpy Host-to-Device]", "Memcpy HtoD (Pinned -> Device)", 1500, 9001, 524288, "Pinned"),
    ("memcpy", "[CUDA memcpy Host-to-Device]", "Memcpy HtoD (Pinned -> Device)", 1100, 9002, 2048, "Pinned"),
    ("memset", "[CUDA memset]", "Memset (Device)", 800, 9003, 4096, "Device"),
    ("kernel", "void sbtest::fill_kernel<(int)4, int>(T2 *, T2, int)", "void sbtest::fill_kernel<4, int>(int*, int, int)",
     1400, 9004, None, None),
    ("kernel", "void sbtest::rms_norm_kernel<c10::BFloat16, (int)8>(T1 *, const T1 *, float, int)",
     "void sbtest::rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, c10::BFloat16 const*, float, int)", 2200, GRAPH,
     None, None),
    ("kernel", "nvjet_tst_sbtest_64x16_TNT", "nvjet_tst_sbtest_64x16_TNT", 9000, GRAPH, None, None),
    ("kernel", "void sbtest::rotary_embedding_kernel<c10::BFloat16, (bool)1>(const long *, T1 *, int)",
     "void sbtest::rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*, int)", 1800, GRAPH, None,
     None),
    ("kernel", "void sbtest::reshape_and_cache_flash_kernel<__nv_bfloat16, (int)0>(const T1 *, T1 *, const long *)",
     "void sbtest::reshape_and_cache_flash_kernel<__nv_bfloat16, 0>(__nv_bfloat16 const*, __nv_bfloat16*, long const*)",
     1600, GRAPH, None, None),
    ("kernel", "void flash::sbtest_flash_fwd_splitkv_kernel<(int)128, (bool)1>(flash::Params)",
     "void flash::sbtest_flash_fwd_splitkv_kernel<128, true>(flash::Params)", 12000, GRAPH, None, None),
    ("kernel", "nvjet_tst_sbtest_64x8_TNN", "nvjet_tst_sbtest_64x8_TNN", 5000, GRAPH, None, None),
    ("kernel", "void sbtest::cross_device_reduce_1stage<__nv_bfloat16, (int)2>(sbtest::RankData *, int)",
     "void sbtest::cross_device_reduce_1stage<__nv_bfloat16, 2>(sbtest::RankData*, int)", 7000, GRAPH, None, None),
    ("kernel", "void sbtest::rms_norm_kernel<c10::BFloat16, (int)8>(T1 *, const T1 *, float, int)",
     "void sbtest::rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, c10::BFloat16 const*, float, int)", 2000, GRAPH,
     None, None),
    ("kernel", "nvjet_tst_sbtest_64x16_TNT", "nvjet_tst_sbtest_64x16_TNT", 11000, GRAPH, None, None),
    ("kernel", "void sbtest::act_and_mul_kernel<c10::BFloat16, &sbtest::silu<c10::BFloat16>, (bool)1>(T1 *, const T1 *, int)",
     "void sbtest::act_and_mul_kernel<c10::BFloat16, &sbtest::silu<c10::BFloat16>, true>(c10::BFloat16*, "
     "c10::BFloat16 const*, int)", 3000, GRAPH, None, None),
    ("kernel", "nvjet_tst_sbtest_64x8_TNN", "nvjet_tst_sbtest_64x8_TNN", 6000, GRAPH, None, None),
    ("kernel", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)",
     "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 8000, 9020, None, None),
    ("kernel", "void sbtest::argmax_kernel<float, (int)512>(const T1 *, long *, int)",
     "void sbtest::argmax_kernel<float, 512>(float const*, long*, int)", 2500, 9030, None, None),
    ("memcpy", "[CUDA memcpy Device-to-Host]", "Memcpy DtoH (Device -> Pageable)", 1300, 9031, 8, "Device"),
]
NSYS_T0 = 3_000_000_000  # session ns of the first copy


def nv_schedule():
    """Start ns of each op: copies/memset/fill 4 us apart, then the graph's kernels 300 ns apart, then the rest."""
    out, t = [], NSYS_T0
    for i, op in enumerate(NV_OPS):
        out.append(t)
        nxt = NV_OPS[i + 1] if i + 1 < len(NV_OPS) else None
        t += op[3] + (300 if nxt is not None and nxt[4] == GRAPH and op[4] == GRAPH else 4000)
    return out


def write_nsys_decode_step():
    d = "nsys/decode_step/"
    header = ("Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),"
              "Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name")
    device = "NVIDIA H100 80GB HBM3 (%d)" % NSYS_DEVICE
    lines = [header]
    for (kind, name, _, dur, corr, nbytes, src), start in zip(NV_OPS, nv_schedule()):
        if kind == "kernel":
            cells = [start, dur, corr, 132, 1, 1, 256, 1, 1, 64, "0.000", "0.016", "", "", "", "", device, 1, "",
                     NSYS_STREAM, name]
        else:
            mb = nbytes / 1e6
            dst = "" if kind == "memset" else ("Device" if "Host-to-Device" in name else "Pageable")
            cells = [start, dur, corr, "", "", "", "", "", "", "", "", "", "%.3f" % mb, "%.3f" % (mb / (dur / 1e9)),
                     src, dst, device, 1, "", NSYS_STREAM, name]
        lines.append(",".join(csv_min(c) for c in cells))
    write(d + "sbtest_cuda_gpu_trace.csv", "\n".join(lines) + "\n")

    def summary(events, calls_col, name_col):
        grand = sum(x for _, x in events)
        text = "Time (%%),Total Time (ns),%s,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),%s\n" % (calls_col, name_col)
        for name, durs in ranked(events):
            total = sum(durs)
            text += "%.1f,%d,%d,%.1f,%.1f,%d,%d,%.1f,%s\n" % (total * 100.0 / grand, total, len(durs), total / len(durs),
                                                             statistics.median(durs), min(durs), max(durs),
                                                             sample_sd(durs), csv_min(name))
        return text

    kern_sum = summary([(o[1], o[3]) for o in NV_OPS if o[0] == "kernel"], "Instances", "Name")
    write(d + "sbtest_cuda_gpu_kern_sum.csv", kern_sum)
    write(d + "sbtest_cuda_gpu_mem_time_sum.csv",
          summary([(o[1], o[3]) for o in NV_OPS if o[0] != "kernel"], "Count", "Operation"))
    # Host-side API durations are illustrative (the GPU trace does not give them).
    api = [("cudaMemcpyAsync", 5100), ("cudaMemcpyAsync", 4700), ("cudaMemsetAsync", 3300), ("cudaLaunchKernel", 3900),
           ("cudaGraphLaunch", 14200), ("cudaLaunchKernel", 3500), ("cudaMemcpyAsync", 5600),
           ("cudaStreamSynchronize", 61000)]
    write(d + "sbtest_cuda_api_sum.csv", summary(api, "Num Calls", "Name"))
    write(d + "stdout_cuda_gpu_kern_sum.txt",
          "Generating SQLite file sbtest.sqlite from sbtest.nsys-rep\n"
          "Processing [sbtest.sqlite] with [/opt/nvidia/nsight-systems/2025.1.1/host-linux-x64/reports/"
          "cuda_gpu_kern_sum.py]... \n" + kern_sum + "\n")


class Us:
    """A Kineto µs value printed with exactly 3 decimals."""

    def __init__(self, ns):
        self.ns = ns


def kineto_dumps(obj):
    marks = {}

    def conv(o):
        if isinstance(o, Us):
            key = "@@US%d@@" % len(marks)
            marks[key] = "%d.%03d" % (o.ns // 1000, o.ns % 1000)
            return key
        if isinstance(o, dict):
            return {k: conv(v) for k, v in o.items()}
        if isinstance(o, list):
            return [conv(v) for v in o]
        return o

    text = json.dumps(conv(obj))
    for key, value in marks.items():
        text = text.replace('"%s"' % key, value)
    return text


def write_torch_decode_step():
    d = "torch/decode_step_rank1/"
    host_pid = 5150
    rel = SESSION_UNIX_NS - TORCH_BASE_NS  # torch ts = trace ns relative to baseTimeNanoseconds

    def ts(session_ns):
        return Us(rel + session_ns)

    starts = nv_schedule()
    events = [
        {"name": "process_name", "ph": "M", "ts": ts(NSYS_T0 - 900_000), "pid": host_pid, "tid": 0,
         "args": {"name": "python3"}},
        {"name": "process_name", "ph": "M", "ts": ts(NSYS_T0 - 900_000), "pid": NSYS_DEVICE, "tid": 0,
         "args": {"name": "GPU %d" % NSYS_DEVICE}},
        {"ph": "X", "cat": "user_annotation", "name": "execute_model", "pid": host_pid, "tid": host_pid,
         "ts": ts(NSYS_T0 - 60_000), "dur": Us(150_000), "args": {"External id": 1}},
    ]
    gpu = []
    launched = set()
    for i, ((kind, _, name, dur, corr, nbytes, _src), start) in enumerate(zip(NV_OPS, starts)):
        if corr not in launched:
            launched.add(corr)
            api = {"memcpy": "cudaMemcpyAsync", "memset": "cudaMemsetAsync"}.get(kind, "cudaLaunchKernel")
            cat = "cuda_runtime"
            if corr == GRAPH:
                api = "cudaGraphLaunch"
            elif corr == 9020:
                api, cat = "cuLaunchKernelEx", "cuda_driver"
            call_ts = start - 9_000
            if i == 0:
                events.append({"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "pid": host_pid, "tid": host_pid,
                               "ts": ts(call_ts - 1_000), "dur": Us(6_000), "args": {"External id": 100 + i}})
            events.append({"ph": "X", "cat": cat, "name": api, "pid": host_pid, "tid": host_pid, "ts": ts(call_ts),
                           "dur": Us(3_250), "args": {"External id": 100 + i, "correlation": corr}})
            events.append({"ph": "s", "id": corr, "pid": host_pid, "tid": host_pid, "ts": ts(call_ts), "cat": "ac2g",
                           "name": "ac2g"})
        args = {"External id": 100 + i, "device": NSYS_DEVICE, "context": 1, "stream": NSYS_STREAM,
                "correlation": corr}
        if kind != "kernel":
            args["bytes"] = nbytes
        else:
            args["registers per thread"] = 64
        cat = {"kernel": "kernel", "memcpy": "gpu_memcpy", "memset": "gpu_memset"}[kind]
        gpu.append({"ph": "X", "cat": cat, "name": name, "pid": NSYS_DEVICE, "tid": NSYS_STREAM, "ts": ts(start),
                    "dur": Us(dur), "args": args})
        gpu.append({"ph": "f", "id": corr, "pid": NSYS_DEVICE, "tid": NSYS_STREAM, "ts": ts(start), "cat": "ac2g",
                    "name": "ac2g", "bp": "e"})
    events += gpu
    events.append({"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "",
                   "ts": ts(starts[-1] + 20_000)})
    doc = {"schemaVersion": 1,
           "deviceProperties": [{"id": NSYS_DEVICE, "name": "NVIDIA H100 80GB HBM3", "computeMajor": 9,
                                 "computeMinor": 0}],
           "distributedInfo": {"backend": "nccl", "rank": 1, "world_size": 2},
           "displayTimeUnit": "ms", "baseTimeNanoseconds": TORCH_BASE_NS,
           "traceEvents": events,
           "traceName": "/tmp/sbtest_profile/rank1.1760000100000.pt.trace.json"}
    text = kineto_dumps(doc)
    text = text.replace('"traceEvents": [', '"traceEvents": [\n  ').replace("}, {", "},\n  {")
    path = d + "rank1.1760000100000.pt.trace.json"
    write(path, text + "\n")
    full = os.path.join(HERE, path)
    subprocess.run(["gzip", "-k", "-n", "-f", full], check=True)


if __name__ == "__main__":
    write_rocprof_v1_decode_step()
    write_rocprof_v1_hip_saxpy()
    write_rocprofv3_decode_step()
    write_rocprofv3_layout_2024()
    write_nsys_decode_step()
    write_torch_decode_step()
    # A JSON sample that does not parse would test the error path instead of the parser.
    for rel in ("rocprof_v1/decode_step/results.json", "rocprof_v1/hip_saxpy/results.json",
                "torch/decode_step_rank1/rank1.1760000100000.pt.trace.json"):
        with open(os.path.join(HERE, rel)) as f:
            json.load(f)
