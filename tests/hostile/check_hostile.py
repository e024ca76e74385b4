"""Runs quantlens on each hostile input of this folder (make_hostile.py) and checks that it ends
with exit 2 or 3, a `quantlens: ...` line on stderr, within 20 s and under 1 GB of resident memory,
headless (QT_QPA_PLATFORM=offscreen for the GUI cases).
Usage: check_hostile.py QUANTLENS REPO
"""
import os
import subprocess
import sys
import tempfile
import time

quantlens, repo = sys.argv[1], sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
demo = os.path.join(repo, "resources", "demo")
out = tempfile.mkdtemp()
good = os.path.join(here, "good_input.npy")

def h(name):
    return os.path.join(here, name)

# Broken structure: refused when loaded, by every command. Hostile sizes: refused when run.
broken = ["dims_bomb", "raw_short", "negative_dim", "cycle", "dangling", "duplicate_output",
          "random", "empty"]
runtime = ["expand_bomb", "reshape_bomb", "tile_bomb", "constant_of_shape_bomb", "wrong_type"]
cases = []
for m in broken + runtime:
    model = h(m + ".onnx")
    cases.append((f"infer {m}", ["infer", model, "--input", f"x={good}", "--output-dir", out]))
    # In-app quantization runs the float model on the calibration data.
    cases.append((f"analyze {m}", ["analyze", "--float", model, "--calib", good, "--data", good]))
for m in broken:
    cases.append((f"gui {m}", ["gui", h(m + ".onnx"), "--screenshot", os.path.join(out, m + ".png")]))
demo_float = os.path.join(demo, "fashion_cnn.onnx")
demo_pair = ["--float", demo_float, "--quant", os.path.join(demo, "fashion_cnn_int8.onnx")]
for f in ["bomb.npy", "bad_header.npy", "huge.pb"]:
    cases.append((f"infer input {f}", ["infer", demo_float, "--input", f"input={h(f)}",
                                       "--output-dir", out]))
    cases.append((f"analyze data {f}", ["analyze", *demo_pair, "--data", h(f)]))
cases.append(("analyze skip-list of wrong types",
              ["analyze", *demo_pair, "--data", os.path.join(demo, "samples.npy"), "--skip-list",
               h("skip_wrong_types.json")]))
cases.append(("quantize skip-list of wrong types",
              ["quantize", demo_float, "--calib", os.path.join(demo, "samples.npy"), "--out",
               os.path.join(out, "q.onnx"), "--skip-list", h("skip_wrong_types.json")]))
cases.append(("gui project of wrong types",
              ["gui", h("project_wrong_types.qlproj"), "--screenshot", os.path.join(out, "p.png")]))
cases.append(("report project of wrong types",
              ["report", h("project_wrong_types.qlproj"), "--html", os.path.join(out, "r.html")]))
cases.append(("gui random bytes as a project",
              ["gui", h("random.onnx").replace(".onnx", ".qlproj"), "--screenshot",
               os.path.join(out, "q.png")]))

env = dict(os.environ, QT_QPA_PLATFORM="offscreen", OMP_NUM_THREADS="2")


def run(args):
    """Exit code (or "timeout"), stderr, seconds and peak RSS (MB) of one run."""
    start = time.monotonic()
    with tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen([quantlens, *args], stdout=subprocess.DEVNULL, stderr=err, env=env)
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - start > 20:
                child.kill()
                pid, status, usage = os.wait4(child.pid, 0)
                status = None
                break
            time.sleep(0.02)
        child.returncode = 0  # reaped above; keeps Popen from waiting again
        err.seek(0)
        code = os.waitstatus_to_exitcode(status) if status is not None else "timeout"
        return code, err.read(), time.monotonic() - start, usage.ru_maxrss / 1024


failures = 0
for name, args in cases:
    code, err, seconds, rss_mb = run(args)
    lines = [l for l in err.splitlines() if l.startswith("quantlens: ")]
    ok = code in (2, 3) and len(lines) >= 1 and seconds < 20 and rss_mb < 1024
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {name}: exit {code}, {seconds:.2f} s, {rss_mb:.0f} MB: "
          f"{lines[0] if lines else err.strip()[:200]!r}")
print(f"{len(cases) - failures} of {len(cases)} hostile cases end cleanly")
sys.exit(1 if failures else 0)
