package report

import (
	"html/template"
	"io"
)

// page is one report as HTML: sections of figures and tables. Every string
// is text (html/template escapes it); only Figure.SVG is markup, and the
// chart kit escapes every text it puts there.
type page struct {
	Title    string
	Subtitle string
	Notes    []note
	Sections []section
}

type note struct {
	Text string
	// Bad marks a failure or a warning a reader must not miss.
	Bad bool
}

type section struct {
	Heading string
	Intro   string
	Figures []figure
	Tables  []table
}

type figure struct {
	SVG     template.HTML
	Caption string
}

type table struct {
	Caption string
	Head    []string
	Rows    [][]cell
	// Empty is said instead of an empty table.
	Empty string
}

// cell is one table cell. User text (queries, names) is isolated with
// <bdi> so right-to-left text cannot reorder the row around it.
type cell struct {
	Text string
	Num  bool
	User bool
	Bad  bool
}

func numCell(s string) cell  { return cell{Text: s, Num: true} }
func userCell(s string) cell { return cell{Text: s, User: true} }

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>{{.Title}}</title>
<style>
:root {
  --bg: #ffffff; --fg: #1d1d1f; --muted: #5d6168; --grid: #e4e4e7; --axis: #71717a; --panel: #f6f6f7;
  /* Okabe–Ito: distinguishable with every common colour vision deficiency */
  --c0: #0072b2; --c1: #e69f00; --c2: #009e73; --c3: #cc79a7; --c4: #d55e00; --c5: #56b4e9; --c6: #f0e442;
  --good: #0072b2; --bad: #d55e00; --mark: #000000;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #16181d; --fg: #e9e9ec; --muted: #a3a6ad; --grid: #2e3139; --axis: #8b8f98; --panel: #1f2228;
    --c0: #56b4e9; --c5: #0072b2; --good: #56b4e9; --mark: #ffffff;
  }
}
@media print {
  :root {
    --bg: #ffffff; --fg: #000000; --muted: #444444; --grid: #dddddd; --axis: #666666; --panel: #ffffff;
    --c0: #0072b2; --c5: #56b4e9; --good: #0072b2; --mark: #000000;
  }
  body { max-width: none; margin: 0; }
  section, figure, table { break-inside: avoid; }
}
html { background: var(--bg); color: var(--fg); }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; max-width: 1180px; margin: 0 auto; padding: 16px 24px 32px; }
h1 { font-size: 22px; margin: 0 0 2px; overflow-wrap: anywhere; }
h2 { font-size: 17px; margin: 22px 0 6px; border-bottom: 1px solid var(--grid); padding-bottom: 3px; }
.sub, figcaption, .intro, .empty { color: var(--muted); }
.note { padding: 6px 10px; background: var(--panel); border-left: 4px solid var(--good); margin: 8px 0; overflow-wrap: anywhere; }
.note.bad { border-left-color: var(--bad); font-weight: 600; }
.figs { display: flex; flex-wrap: wrap; gap: 10px 28px; align-items: flex-start; margin: 6px 0 10px; }
figure { margin: 0; max-width: 100%; }
figure svg { max-width: 100%; height: auto; display: block; }
figcaption { font-size: 12.5px; margin-top: 2px; width: 0; min-width: 100%; } /* as wide as its chart, never wider */
table { border-collapse: collapse; margin: 8px 0 14px; font-size: 13px; }
caption { text-align: left; font-weight: 600; padding-bottom: 4px; }
th, td { padding: 3px 10px 3px 0; border-bottom: 1px solid var(--grid); text-align: left; vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.user { max-width: 640px; overflow-wrap: break-word; } /* words whole: a narrow window scrolls the table */
.scroll { overflow-x: auto; max-width: 100%; }
td.bad { color: var(--bad); font-weight: 600; }
svg text { fill: var(--fg); font-size: 11px; unicode-bidi: plaintext; }
svg .tick, svg .nodata-label, svg .small { fill: var(--muted); }
svg .small { font-size: 9.5px; }
svg .axis-label { font-size: 11.5px; }
svg .panel-title { font-size: 12px; font-weight: 600; }
svg .grid { stroke: var(--grid); stroke-width: 1; }
svg .axis { stroke: var(--axis); stroke-width: 1; }
svg .hatch { stroke: var(--axis); stroke-width: 1.2; opacity: .55; }
svg .nodata { stroke: none; }
svg .ref { stroke: var(--axis); stroke-width: 1; stroke-dasharray: 4 3; fill: none; }
svg .ln { fill: none; stroke-width: 2; }
svg .dashed { stroke-dasharray: 5 3; }
svg .wh { stroke-width: 1.4; fill: none; }
svg .s0 { fill: var(--c0); stroke: var(--c0); } svg .s1 { fill: var(--c1); stroke: var(--c1); }
svg .s2 { fill: var(--c2); stroke: var(--c2); } svg .s3 { fill: var(--c3); stroke: var(--c3); }
svg .s4 { fill: var(--c4); stroke: var(--c4); } svg .s5 { fill: var(--c5); stroke: var(--c5); }
svg .s6 { fill: var(--c6); stroke: var(--c6); }
svg .ln.s0, svg .ln.s1, svg .ln.s2, svg .ln.s3, svg .ln.s4, svg .ln.s5, svg .ln.s6 { fill: none; }
svg .good { fill: var(--good); stroke: var(--good); } svg .bad { fill: var(--bad); stroke: var(--bad); }
svg .pt { fill-opacity: .45; stroke-width: .8; }
svg .mark { fill: none; stroke: var(--mark); stroke-width: 2; }
svg .mark-alt { fill: none; stroke: var(--mark); stroke-width: 1.6; stroke-dasharray: 3 2; }
svg .cell-dark { fill: #111111; font-size: 9.5px; } svg .cell-light { fill: #ffffff; font-size: 9.5px; }
svg .bar-label { font-size: 9.5px; fill: var(--muted); }
</style>
</head>
<body>
<header>
<h1>{{.Title}}</h1>
{{with .Subtitle}}<p class="sub">{{.}}</p>{{end}}
</header>
{{range .Notes}}<p class="note{{if .Bad}} bad{{end}}">{{.Text}}</p>
{{end}}
{{- range .Sections}}
<section>
<h2>{{.Heading}}</h2>
{{with .Intro}}<p class="intro">{{.}}</p>{{end}}
{{- with .Figures}}
<div class="figs">
{{- range .}}
<figure>{{.SVG}}<figcaption>{{.Caption}}</figcaption></figure>
{{- end}}
</div>
{{- end}}
{{- range .Tables}}
{{if .Rows}}<div class="scroll"><table>
{{with .Caption}}<caption>{{.}}</caption>{{end}}
<thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}<td{{if or .Num .User .Bad}} class="{{if .Num}}num{{end}}{{if .User}}user{{end}}{{if .Bad}} bad{{end}}"{{end}}>{{if .User}}<bdi>{{.Text}}</bdi>{{else}}{{.Text}}{{end}}</td>{{end}}</tr>
{{end}}</tbody>
</table></div>{{else}}<p class="empty">{{with .Caption}}{{.}}: {{end}}{{.Empty}}</p>{{end}}
{{- end}}
</section>
{{- end}}
<footer class="sub"><p>Written by ragd: one self-contained page, no script, no network. The figures are those of the command's --json output.</p></footer>
</body>
</html>
`))

func (p *page) write(w io.Writer) error { return pageTemplate.Execute(w, p) }
