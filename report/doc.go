// Package report renders the reports of `ragd measure`, `ragd eval` and
// `ragd calibrate` for people: as text tables and as one self-contained
// HTML page with inline SVG charts. The figures are the report objects the
// --json output prints (api.MeasureReport, eval.Report); nothing here computes
// a metric, it only draws.
package report
