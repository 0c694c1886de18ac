package report

import "html/template"

// page is the report's HTML. Two columns share a 1400 px screen: the
// timeline scales to its column, the trace scrolls in its own; the verdict
// banner spans both at the top.
var page = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>zksim: {{.Verdict}} in {{.Title}}</title>
<style>
*{box-sizing:border-box}
body{margin:0;font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;color:#212121;background:#fff}
#verdict{background:#b3261e;color:#fff;padding:10px 16px}
#verdict h1{margin:0;font-size:22px}
#verdict ul{margin:4px 0 0;padding-left:20px;font:13px/1.4 ui-monospace,monospace;overflow-wrap:anywhere}
#meta{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px 12px;margin:0;padding:8px 16px;background:#f5f5f5;border-bottom:1px solid #ddd}
#meta dt{font-weight:600;color:#555}
#meta dd{margin:0;font-family:ui-monospace,monospace;font-size:13px;overflow-wrap:anywhere}
main{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,540px);gap:12px;padding:8px 16px}
h2{font-size:15px;margin:4px 0}
#timeline{width:100%;height:auto;display:block}
#timeline text{font:11px ui-monospace,monospace;fill:#424242}
#timeline .name{font-weight:600;fill:#212121}
#timeline .axis,#timeline .tlabel{fill:#757575;font-size:10px}
#timeline .grid{stroke:#e0e0e0}
#timeline .band{fill:#fafafa}
#timeline .life{stroke:#bdbdbd}
#timeline .dead{fill:#c62828;fill-opacity:.08}
#timeline .paused{fill:#00838f;fill-opacity:.12}
#timeline .wait{stroke:#90a4ae;stroke-width:3}
#timeline .hold{fill:#1565c0}
#timeline .hold.read{fill:#2e7d32}
#timeline .hold.bad{fill:#c62828;stroke:#7f0000;stroke-width:1.5}
#timeline .act{stroke:#9e9e9e}
#timeline line.stuck{stroke:#ef6c00;stroke-width:4;stroke-dasharray:6 3}
#timeline text.stuck{fill:#e65100;font-weight:600}
#timeline .tick{stroke:#bdbdbd}
#timeline .viol{stroke:#c62828;stroke-width:1.5;stroke-dasharray:4 3}
#timeline .mark text{fill:#fff;font-size:10px;font-weight:700;text-anchor:middle}
#timeline #cursor{stroke:#ffab00;stroke-width:2}
#legend{display:flex;flex-wrap:wrap;gap:4px 14px;margin:6px 0;padding:0;list-style:none;font-size:12px}
#legend b{display:inline-block;min-width:16px;height:16px;border-radius:8px;color:#fff;text-align:center;font-size:10px;line-height:16px;margin-right:4px}
#legend .bar{border-radius:2px;min-width:22px}
#trace{max-height:calc(100vh - 24px);overflow:auto;border:1px solid #ddd;position:sticky;top:8px}
#trace table{border-collapse:collapse;font:12px/1.35 ui-monospace,monospace;white-space:pre}
#trace td{padding:0 6px 0 0;vertical-align:top}
#trace td.n{text-align:right;color:#757575;padding-left:4px}
#trace tr.bad{background:#ffcdd2}
#trace tr.bad td.n{color:#b3261e;font-weight:700}
#trace tr:target{outline:2px solid #ffab00}
#trace tr:hover{background:#fff3e0}
#trace .why{color:#6a1b9a;font-weight:600;margin-left:8px}
#verdict .cause{display:block;color:#ffe0e0}
#cause{margin:6px 0;padding:6px 10px;border-left:4px solid #6a1b9a;background:#f3e5f5}
#cause ol{margin:2px 0;padding-left:22px;font:13px/1.4 ui-monospace,monospace}
#cause a{color:#4a148c}
#notes{margin:6px 0;padding:6px 10px;border-left:4px solid #9e9e9e;background:#fafafa;font-size:13px}
#timeline line.chain{stroke:#6a1b9a;stroke-width:2}
#timeline .link circle{fill:#6a1b9a;stroke:#fff;stroke-width:1.5}
#timeline .link.root circle{fill:#fff;stroke:#6a1b9a;stroke-width:3}
#timeline .link text{fill:#fff;font-size:10px;font-weight:700;text-anchor:middle}
#timeline .link.root text{fill:#6a1b9a}
#timeline text.root{fill:#6a1b9a;font-weight:700}
</style>
</head>
<body>
<header id="verdict">
<h1>{{.Verdict}}</h1>
<ul>{{range .Violations}}<li>{{.Class}}: {{.Detail}}{{if .Cause}}<span class="cause">cause: {{.Cause}}</span>{{end}}</li>{{end}}</ul>
</header>
<dl id="meta">
<dt>recipe</dt><dd>{{.Title}}</dd>
<dt>seed</dt><dd>{{if .Seed}}{{.Seed}}{{else}}unknown{{end}}</dd>
{{if .Workload}}<dt>workload</dt><dd>{{.Workload}}</dd>{{end}}
<dt>faults</dt><dd>{{.Faults}}; in this run: {{.Injected}}</dd>
{{if .Replay}}<dt>replay</dt><dd>{{.Replay}}</dd>{{end}}
</dl>
<main>
<section>
{{if .Chain}}<div id="cause"><b>How it came about</b> (the worst violation's cause, numbered on the timeline):
<ol>{{range .Chain}}<li><a href="#s{{.Step}}">step {{.Step}}</a>: {{.What}}{{if .Root}} <b>(the cause)</b>{{end}}</li>{{end}}</ol></div>{{end}}
{{if .Notes}}<div id="notes"><b>Notes</b> (not violations):<ul>{{range .Notes}}<li>{{.Class}}: {{.Detail}}{{if .Cause}}; cause: {{.Cause}}{{end}}</li>{{end}}</ul></div>{{end}}
<h2>Timeline: clients down, steps across</h2>
{{.SVG}}
<ul id="legend">
<li><b class="bar" style="background:#1565c0">&nbsp;</b>held (exclusive or write)</li>
<li><b class="bar" style="background:#2e7d32">&nbsp;</b>held (read)</li>
<li><b class="bar" style="background:#c62828">&nbsp;</b>hold in the violation</li>
<li><b class="bar" style="background:#90a4ae;height:4px;vertical-align:middle">&nbsp;</b>acquiring</li>
<li><b class="bar" style="background:#00838f;opacity:.3">&nbsp;</b>paused</li>
<li><b class="bar" style="background:#c62828;opacity:.15">&nbsp;</b>crashed</li>
<li><b class="bar" style="background:repeating-linear-gradient(90deg,#ef6c00 0 6px,transparent 6px 9px);height:4px;vertical-align:middle">&nbsp;</b>left waiting (deadlock, no progress)</li>
{{range .Legend}}<li><b style="background:{{.Colour}}">{{.Glyph}}</b>{{.Name}}: {{.Text}}</li>{{end}}
<li><b class="bar" style="background:#fff;border:2px dashed #c62828">&nbsp;</b>step showing the violation</li>
<li><b style="background:#fff;color:#6a1b9a;border:2px solid #6a1b9a;line-height:12px">1</b><b style="background:#6a1b9a">2</b>the cause, step by step, joined by arrows</li>
</ul>
<p>Hover a mark for its step and trace line; click it to find the line in the trace. Hover a trace line to see its step on the timeline.</p>
</section>
<section>
<h2>Trace (violating steps in red)</h2>
<div id="trace"><table>
{{.TraceRows}}</table></div>
</section>
</main>
<script>
(function(){
var cur=document.getElementById("cursor"),box=document.getElementById("trace");
var bad=box.querySelector("tr.bad");
if(bad&&!location.hash){box.scrollTop=Math.max(0,bad.offsetTop-box.clientHeight/3);}
document.querySelectorAll("#trace tr[data-x]").forEach(function(r){
 r.addEventListener("mouseenter",function(){cur.setAttribute("x1",r.dataset.x);cur.setAttribute("x2",r.dataset.x);});
});
})();
</script>
</body>
</html>
`))
