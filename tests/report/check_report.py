"""Checks an HTML + PDF report pair against the analysis JSON of the same run (tests/report).

The HTML must be one self-contained file (no http(s) or protocol-relative src/href/url()),
name every layer in its table, state the output SQNR, and carry the analysis as JSON that names
the models, and list the analysis' worst_samples in its order (at most 20 rows); the PDF text
(pdftotext) must name every layer, the output SQNR and the worst samples, on >= 2 pages.
Usage: check_report.py ANALYSIS.json REPORT.html REPORT.pdf
"""
import html
import json
import re
import subprocess
import sys

analysis = json.load(open(sys.argv[1]))
page = open(sys.argv[2], encoding="utf-8").read()
layers = [layer["name"] for layer in analysis["layers"]]
sqnr = f'{analysis["output"]["sqnr_db"]:.2f} dB'
problems = []

external = re.findall(r'''(?:src|href)\s*=\s*["']?\s*(?:https?:)?//|url\(\s*["']?\s*(?:https?:)?//''',
                      page, re.IGNORECASE)
if external:
    problems.append(f"external references: {external[:3]}")
if re.search(r"<link\b", page, re.IGNORECASE):
    problems.append("a <link> element (stylesheets must be inline)")
table = page[page.find('id="layers"'):]
cells = [html.unescape(c) for c in re.findall(r'<td class="name">(.*?)</td>', table)]
if cells != layers:
    problems.append(f"HTML layer table {cells} != analysis layers {layers}")
if sqnr not in page:
    problems.append(f"HTML lacks the output SQNR '{sqnr}'")
worst = [str(w["index"]) for w in analysis.get("worst_samples", [])][:20]
section = page[page.find("<h2>Worst samples</h2>"):]
rows = re.findall(r"<td>#(\d+)</td>", section)
if not worst or rows != worst:
    problems.append(f"HTML worst samples {rows} != the analysis' {worst}")
embedded = re.search(r'<script type="application/json" id="quantlens-project">(.*?)</script>', page, re.S)
if not embedded:
    problems.append("no embedded project")
else:
    project = json.loads(embedded.group(1).replace("<\\/", "</"))
    if "float_model" not in json.dumps(project):
        problems.append(f"embedded project without models: {list(project)}")

info = subprocess.run(["pdfinfo", sys.argv[3]], capture_output=True, text=True, check=True).stdout
pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
if pages < 2:
    problems.append(f"PDF has {pages} page(s)")
text = subprocess.run(["pdftotext", "-layout", sys.argv[3], "-"], capture_output=True, text=True,
                      check=True).stdout
missing = [name for name in layers if name not in text]
if missing:
    problems.append(f"PDF text lacks layers {missing}")
if sqnr not in text:
    problems.append(f"PDF text lacks the output SQNR '{sqnr}'")
if "Worst samples" not in text or f"#{worst[0] if worst else '?'}" not in text:
    problems.append("PDF text lacks the worst samples")
if f"Page 1 of {pages}" not in text:
    problems.append("PDF without page numbers")

if problems:
    print("\n".join(problems))
    sys.exit(1)
print(f"{len(layers)} layers, output {sqnr}, {len(page)} bytes of HTML, {pages} PDF pages")
