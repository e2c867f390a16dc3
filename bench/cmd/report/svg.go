package main

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// Chart geometry, in pixels. Ratios are drawn on a log scale from
// chartMin to chartMax around a line at 1; bars beyond are clipped and
// marked.
const (
	chartWidth  = 1040
	labelWidth  = 430
	plotLeft    = labelWidth + 10
	plotRight   = chartWidth - 150
	rowHeight   = 20
	headerSpace = 56
	chartMin    = 0.1
	chartMax    = 100.0
)

// x returns the horizontal position of ratio r, clipped to the plot.
func x(r float64) float64 {
	r = math.Min(math.Max(r, chartMin), chartMax)
	span := math.Log10(chartMax) - math.Log10(chartMin)
	return plotLeft + (math.Log10(r)-math.Log10(chartMin))/span*(plotRight-plotLeft)
}

// writeSVG draws one diverging bar per measured row: green to the right of
// the line at 1 where typedcache is better, red to the left where it is
// worse, with the row's target as a black tick.
func writeSVG(w io.Writer, info runInfo, outs []outcome) error {
	var measured []outcome
	areas := 0
	last := ""
	for _, o := range outs {
		if !o.measured {
			continue
		}
		if o.area != last {
			areas++
			last = o.area
		}
		measured = append(measured, o)
	}
	height := headerSpace + (len(measured)+areas)*rowHeight + 30

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", chartWidth, height, chartWidth, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	title := "typedcache vs client-go: how many times better (log scale; right of 1 = typedcache better)"
	if info.quick {
		title += " — quick mode"
	}
	fmt.Fprintf(&b, `<text x="10" y="20" font-size="14" font-weight="bold">%s</text>`+"\n", html.EscapeString(title))
	fmt.Fprintf(&b, `<text x="10" y="38" fill="#555">%s, commit %s, %s. Black tick: target. Bars clipped at %g× and %g×.</text>`+"\n",
		html.EscapeString(info.date), html.EscapeString(info.commit), html.EscapeString(info.goVersion), chartMin, chartMax)

	top := float64(headerSpace)
	bottom := float64(height - 24)
	for _, g := range []float64{0.1, 0.2, 0.5, 1, 2, 3, 5, 10, 20, 50, 100} {
		gx := x(g)
		stroke, width := "#ddd", 1.0
		if g == 1 {
			stroke, width = "#000", 1.5
		}
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%.1f"/>`+"\n", gx, top-4, gx, bottom, stroke, width)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#555">%g×</text>`+"\n", gx, bottom+14, g)
	}

	y := top
	last = ""
	for _, o := range measured {
		if o.area != last {
			last = o.area
			fmt.Fprintf(&b, `<text x="10" y="%.1f" font-weight="bold">%s</text>`+"\n", y+14, html.EscapeString(o.area))
			y += rowHeight
		}
		label := fmt.Sprintf("%s (%s)", o.what, o.unit)
		if len([]rune(label)) > 66 {
			label = string([]rune(label)[:65]) + "…"
		}
		fmt.Fprintf(&b, `<text x="20" y="%.1f">%s</text>`+"\n", y+14, html.EscapeString(label))
		x1, x2 := x(1), x(o.ratio)
		fill := "#2e8b57"
		if o.ratio < 1 {
			fill = "#c0392b"
			x1, x2 = x2, x1
		}
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%d" fill="%s"/>`+"\n", x1, y+4, math.Max(x2-x1, 1), rowHeight-8, fill)
		if o.target != nil && o.target.ratio > 0 {
			tx := x(o.target.ratio)
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#000" stroke-width="2"/>`+"\n", tx, y+1, tx, y+rowHeight-1)
		}
		text := formatRatio(o.ratio)
		if o.ratio > chartMax || o.ratio < chartMin {
			text += " (clipped)"
		}
		// The value goes right of the bar and of the target tick, or right
		// of the line at 1 for bars drawn to the left.
		right := math.Max(o.ratio, 1)
		if o.target != nil && o.target.ratio > right {
			right = o.target.ratio
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%s</text>`+"\n", x(right)+5, y+14, html.EscapeString(text))
		y += rowHeight
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
