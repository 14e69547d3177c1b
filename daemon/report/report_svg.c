/*
 * report_svg — the report's charts, drawn here as inline SVG (no script,
 * no font file: the text uses the page's font). A chart is a horizontal
 * bar per item, so labels of any length sit left of their bars and the
 * chart scales to the page's width (viewBox, width 100 %). Whiskers draw
 * an interval where the caller has one; the axis starts at 0.
 */
#include "report_int.h"

#include <math.h>
#include <stdio.h>

#define W 480	   /* the viewBox's width */
#define ROW 22	   /* one bar's row */
#define LABEL 100  /* the labels' column */
#define FIGURE 100 /* the figures' column, right */
#define TOP 6
#define AXIS 18 /* the axis line and its ticks, under the bars */

/* A "nice" step (1, 2 or 5 × 10^k) that splits max into about 4. */
static double nice_step(double max)
{
	double raw = max / 4, p = pow(10, floor(log10(raw))), f = raw / p;

	return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

void report_svg_bars(struct report_buf *b, const char *caption,
		     const char *unit, const struct report_bar *bars, size_t n)
{
	const double plot = W - LABEL - FIGURE - 10;
	double max = 0, step, x0 = LABEL;
	int h = TOP + (int)n * ROW + AXIS + 4;
	char num[48], lo[48], hi[48];

	for (size_t i = 0; i < n; i++) {
		if (bars[i].has_value && bars[i].value > max)
			max = bars[i].value;
		if (bars[i].has_ci && bars[i].hi > max)
			max = bars[i].hi;
	}
	if (!(max > 0))
		max = 1;
	step = nice_step(max);
	max = ceil(max / step) * step;
	report_rawf(b,
		    "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" "
		    "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"",
		    W, h);
	report_text(b, caption);
	report_raw(b, "\" font-size=\"12\" font-family=\"sans-serif\">\n");
	for (double t = 0; t <= max + step / 2; t += step) {
		double x = x0 + plot * t / max;
		report_num(t, 0, num, sizeof(num));
		report_rawf(b,
			    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			    "stroke=\"#dde\"/><text x=\"%.1f\" y=\"%d\" "
			    "text-anchor=\"middle\" fill=\"#666\" "
			    "font-size=\"10\">%s</text>\n",
			    x, TOP, x, TOP + (int)n * ROW + 2, x,
			    TOP + (int)n * ROW + 14, num);
	}
	for (size_t i = 0; i < n; i++) {
		const struct report_bar *r = &bars[i];
		int y = TOP + (int)i * ROW;
		report_rawf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">",
			    LABEL - 6, y + 15);
		report_text(b, r->label);
		report_raw(b, "</text>\n");
		if (!r->has_value) {
			report_rawf(b,
				    "<text x=\"%.1f\" y=\"%d\" "
				    "fill=\"#666\">not run</text>\n",
				    x0 + 4, y + 15);
			continue;
		}
		report_rawf(b,
			    "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
			    "height=\"%d\" fill=\"%s\"/>\n",
			    x0, y + 3, plot * r->value / max, ROW - 6,
			    r->baseline ? "#8a94a6" : "#3b6fb6");
		if (r->has_ci) {
			double a = x0 + plot * fmax(r->lo, 0) / max,
			       z = x0 + plot * r->hi / max;
			report_rawf(b,
				    "<path d=\"M%.1f %dV%dM%.1f %dH%.1fM%.1f "
				    "%dV%d\" stroke=\"#111\" "
				    "stroke-width=\"1.5\" fill=\"none\"/>\n",
				    a, y + 5, y + ROW - 5, a, y + ROW / 2, z, z,
				    y + 5, y + ROW - 5);
		}
		report_shown(r->value, num, sizeof(num));
		report_rawf(b, "<text x=\"%d\" y=\"%d\">%s ", W - FIGURE + 2,
			    y + 15, num);
		report_text(b, report_unit(unit));
		if (r->has_ci) {
			report_shown(r->lo, lo, sizeof(lo));
			report_shown(r->hi, hi, sizeof(hi));
			report_rawf(b, "<title>95 %% interval %s … %s</title>",
				    lo, hi);
		}
		report_raw(b, "</text>\n");
	}
	report_raw(b, "</svg><figcaption>");
	report_text(b, caption);
	report_raw(b, "</figcaption></figure>\n");
}
