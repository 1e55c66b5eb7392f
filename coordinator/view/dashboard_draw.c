/* SPDX-License-Identifier: MIT */
/* Drawing the dashboard: header, agents, the curve, fleet and finished tables, help. */
#include <curses.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "dashboard_view.h"
#include "termplot.h"
#include "units.h"
#include "clock.h"
#include "xalloc.h"

/*
 * Print at (y, x) in at most w columns of the screen: the text is cut by
 * display width (UTF-8 "≤" is one column, three bytes), never wraps to the
 * next line, and nothing lands outside the screen.
 */
__attribute__((format(printf, 5, 6))) static void dashboard_put(int y, int x, int w, attr_t attr,
                                                                const char *fmt, ...)
{
	char buf[1024];
	mbstate_t st;
	size_t i = 0, len;
	int cols = 0;
	va_list ap;

	if (y < 0 || y >= LINES || x < 0 || x >= COLS)
		return;
	if (w > COLS - x)
		w = COLS - x;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	len = strlen(buf);
	memset(&st, 0, sizeof(st));
	while (i < len) {
		wchar_t wc;
		size_t n = mbrtowc(&wc, buf + i, len - i, &st);
		int cw = 1;

		if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
			n = 1;
			memset(&st, 0, sizeof(st));
		} else if ((cw = wcwidth(wc)) < 0) {
			cw = 1;
		}
		if (cols + cw > w)
			break;
		cols += cw;
		i += n;
	}
	attron(attr);
	mvaddnstr(y, x, buf, (int)i);
	attroff(attr);
}

static attr_t dashboard_colour(enum dashboard_pair pair, attr_t fallback)
{
	return has_colors() ? COLOR_PAIR(pair) : fallback;
}

/* "45s", "12m05s", "3h02m". */
static void dashboard_fmt_secs(double s, char *buf, size_t len)
{
	long t = s > 0 ? (long)(s + 0.5) : 0;

	if (t < 60)
		snprintf(buf, len, "%lds", t);
	else if (t < 3600)
		snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(buf, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
}

static void dashboard_fmt_us(double us, char *buf, size_t len)
{
	if (isfinite(us) && us >= 0)
		units_format_duration((uint64_t)(us * 1e3 + 0.5), buf, len);
	else
		snprintf(buf, len, "-");
}

static void dashboard_fmt_tp(double v, const char *unit, char *buf, size_t len)
{
	bool mib = unit != NULL && strcmp(unit, "MiB/s") == 0;

	snprintf(buf, len, "%.*f %s", mib ? 1 : 0, v, mib ? "MiB/s" : "ops/s");
}

static void dashboard_draw_header(struct dashboard *d)
{
	char line[1024], a[64], b[64];
	const struct dashstate_workload *w = d->st.cur_wl >= 0 ? &d->st.wl[d->st.cur_wl] : NULL;
	double rem, layout = dashstate_layout_pct(&d->st);
	size_t ready = 0, lost = 0;
	int n = 0;

	attron(A_REVERSE);
	mvhline(0, 0, ' ', COLS);
	attroff(A_REVERSE);
	if (!d->st.started) {
		dashboard_put(0, 0, COLS, A_REVERSE | A_BOLD, " iocurve%swaiting for the campaign",
		              d->sep);
		return;
	}
	n += snprintf(line + n, sizeof(line) - (size_t)n, " iocurve%s%s", d->sep, d->st.campaign);
	if (w != NULL)
		n += snprintf(line + n, sizeof(line) - (size_t)n, "%sworkload %d/%.0f %s", d->sep,
		              d->st.cur_wl + 1, fmax(d->st.nwl_total, d->st.cur_wl + 1), w->name);
	if (layout >= 0)
		n += snprintf(line + n, sizeof(line) - (size_t)n, "%slaying out %.0f%%", d->sep,
		              layout);
	if (w != NULL && d->st.cur_step >= 0) {
		n += snprintf(line + n, sizeof(line) - (size_t)n, "%sstep %d", d->sep,
		              d->st.cur_step + 1);
		if (w->max_steps > 0)
			n += snprintf(line + n, sizeof(line) - (size_t)n, "/%s%.0f", d->le,
			              w->max_steps);
		if (d->st.offered > 0)
			n += snprintf(line + n, sizeof(line) - (size_t)n, "%soffered %.0f ops/s",
			              d->sep, d->st.offered);
		else
			n += snprintf(line + n, sizeof(line) - (size_t)n, "%soffered max", d->sep);
	}
	dashboard_put(0, 0, COLS, A_REVERSE | A_BOLD, "%s", line);
	if (LINES < 3)
		return;
	dashboard_fmt_secs(dashstate_elapsed(&d->st), a, sizeof(a));
	n = snprintf(line, sizeof(line), " elapsed %s", a);
	if ((rem = dashstate_remaining(&d->st)) >= 0) {
		dashboard_fmt_secs(rem, b, sizeof(b));
		n += snprintf(line + n, sizeof(line) - (size_t)n, "%sremaining %s %s", d->sep,
		              d->le, b);
	}
	for (size_t i = 0; i < d->st.nagents; i++)
		d->st.agents[i].lost ? lost++ : ready++;
	n += snprintf(line + n, sizeof(line) - (size_t)n, "%sagents %zu/%.0f ready", d->sep, ready,
	              fmax(d->st.agents_wanted, (double)d->st.nagents));
	if (lost > 0)
		n += snprintf(line + n, sizeof(line) - (size_t)n, ", %zu lost", lost);
	snprintf(line + n, sizeof(line) - (size_t)n, "%sresults %s", d->sep, d->st.results);
	dashboard_put(1, 0, COLS, 0, "%s", line);
}

/* Agents: name, state and their latest interval; h rows at y. */
static void dashboard_draw_agents(struct dashboard *d, int y, int h)
{
	static const struct {
		const char *title;
		int w;
		int sort; /* the dashstate_sort this column is, or -1 */
	} col[] = {{"agent", 14, DASHSTATE_SORT_NAME},
	           {"state", 6, -1},
	           {"ops/s", 9, DASHSTATE_SORT_OPS},
	           {"MiB/s", 8, -1},
	           {"mean", 9, DASHSTATE_SORT_MEAN},
	           {"p99", 9, DASHSTATE_SORT_P99},
	           {"cpu%", 6, -1},
	           {"errors", 7, -1}};
	const int ncol = (int)(sizeof(col) / sizeof(col[0]));
	int x = 1, shown;

	if (h < 1)
		return;
	for (int c = 0; c < ncol; x += col[c].w + 1, c++) {
		bool sorted = col[c].sort == (int)d->sort;

		dashboard_put(y, x, col[c].w + 1, A_BOLD | (sorted ? A_REVERSE : A_UNDERLINE),
		              c == 0 ? "%-*s" : "%*s", col[c].w, col[c].title);
	}
	dashstate_sort_agents(&d->st, d->sort);
	shown = (int)d->st.nagents <= h - 1 ? (int)d->st.nagents : h - 2;
	for (int i = 0; i < shown; i++) {
		const struct dashstate_agent *a = &d->st.agents[i];
		attr_t attr = a->lost ? A_BOLD | dashboard_colour(DASHBOARD_RED, A_REVERSE) : 0;
		char mean[16], p99[16], nums[128];

		dashboard_fmt_us(a->mean_us, mean, sizeof(mean));
		dashboard_fmt_us(a->p99_us, p99, sizeof(p99));
		/* A lost agent's last figures are stale: say why it went instead. */
		if (a->lost)
			snprintf(nums, sizeof(nums), "%s",
			         a->reason[0] ? a->reason : "(no reason given)");
		else if (a->have)
			snprintf(nums, sizeof(nums), "%9.0f %8.1f %9s %9s %6.1f %7.0f", a->ops_s,
			         a->mib_s, mean, p99, a->cpu_pct, a->errors);
		else
			snprintf(nums, sizeof(nums), "%9s %8s %9s %9s %6s %7s", "-", "-", "-", "-",
			         "-", "-");
		dashboard_put(y + 1 + i, 1, COLS, attr, "%-14.14s %-6s %s", a->name,
		              a->lost ? "lost" : "ready", nums);
	}
	if (shown < (int)d->st.nagents)
		dashboard_put(y + 1 + shown, 1, COLS, A_DIM, "... %zu more agents",
		              d->st.nagents - (size_t)shown);
	else if (d->st.nagents == 0 && h > 1)
		dashboard_put(y + 1, 1, COLS, A_DIM, "no agents yet");
}

/* The fleet's last intervals (h rows at y, x), newest at the bottom. */
static void dashboard_draw_fleet(const struct dashboard *d, int y, int x, int h)
{
	size_t n = dashstate_nfleet(&d->st), first;

	if (h < 2)
		return;
	if (d->st.last_mark[0] != '\0')
		dashboard_put(y, x, DASHBOARD_SIDE_W, A_BOLD, "fleet, last intervals%smark %d: %s",
		              d->sep, d->st.last_mark_step + 1, d->st.last_mark);
	else
		dashboard_put(y, x, DASHBOARD_SIDE_W, A_BOLD, "fleet, last intervals");
	dashboard_put(y + 1, x, DASHBOARD_SIDE_W, A_UNDERLINE, "%4s %3s %8s %7s %8s %8s %-7s",
	              "step", "int", "ops/s", "MiB/s", "mean", "p99", "");
	/* The newest ones, when fewer fit. */
	first = n > (size_t)(h - 2) ? n - (size_t)(h - 2) : 0;
	for (size_t i = first; i < n; i++) {
		const struct dashstate_interval *f = dashstate_fleet(&d->st, i);
		char mean[16], p99[16];

		if (f->mark[0] != '\0') {
			/* a mark among the intervals, where it was stamped */
			dashboard_put(y + 2 + (int)(i - first), x, DASHBOARD_SIDE_W,
			              dashboard_colour(DASHBOARD_CYAN, A_BOLD), "%4d %3s mark: %s",
			              f->step + 1, f->interval >= 0 ? "" : "-", f->mark);
			continue;
		}

		dashboard_fmt_us(f->mean_us, mean, sizeof(mean));
		dashboard_fmt_us(f->p99_us, p99, sizeof(p99));
		dashboard_put(y + 2 + (int)(i - first), x, DASHBOARD_SIDE_W, f->warmup ? A_DIM : 0,
		              "%4d %3d %8.0f %7.1f %8s %8s %-7s", f->step + 1, f->interval,
		              f->ops_s, f->mib_s, mean, p99, f->warmup ? "warm-up" : "");
	}
	if (n == 0)
		dashboard_put(y + 2, x, DASHBOARD_SIDE_W, A_DIM, "none yet");
}

/* Rows the observed series take (a heading and one each), 0 when there are none. */
static int dashboard_observed_h(const struct dashboard *d)
{
	return d->st.nobserved > 0 ? (int)d->st.nobserved + 1 : 0;
}

/*
 * observe: sources' latest values (h rows at y, x): SOURCE/SERIES, the value and the
 * interval it came at; a source that did not answer its last poll says why, dimmed.
 */
static void dashboard_draw_observed(const struct dashboard *d, int y, int x, int h)
{
	if (h < 2 || d->st.nobserved == 0)
		return;
	dashboard_put(y, x, DASHBOARD_SIDE_W, A_BOLD, "observed, latest");
	for (size_t i = 0; i < d->st.nobserved && (int)i + 1 < h; i++) {
		const struct dashstate_observed *o = &d->st.observed[i];
		char v[32] = "-", at[32] = "";

		if (o->has)
			snprintf(v, sizeof(v), "%.4g", o->value);
		if (o->step >= 0)
			snprintf(at, sizeof(at), "step %d int %d", o->step + 1, o->interval);
		if (o->late[0] != '\0')
			dashboard_put(y + 1 + (int)i, x, DASHBOARD_SIDE_W, A_DIM, "%-25.25s %9s %s",
			              o->key, v, o->late);
		else
			dashboard_put(y + 1 + (int)i, x, DASHBOARD_SIDE_W, 0, "%-25.25s %9s %s",
			              o->key, v, at);
	}
}

/*
 * The knee in a few words: "83314 ops/s", "> 8000 ops/s" (every step met the
 * SLO: it lies above), "none" (no step did); a replay's as a speed of its trace
 * first, as the summary says it: "x2.40 (3100 ops/s)". True when it is a throughput
 * the curve can mark.
 */
static bool dashboard_fmt_knee(const struct dashstate_workload *w, char *buf, size_t len)
{
	char tp[96], v[48];

	dashboard_fmt_tp(w->knee.tp, w->unit, v, sizeof(v));
	if (w->knee_speed > 0) /* cut, never raised, as the summary's */
		snprintf(tp, sizeof(tp), "x%.2f (%s)", floor(w->knee_speed * 100 + 1e-9) / 100, v);
	else
		snprintf(tp, sizeof(tp), "%s", v);
	if (w->knee.kind == EVENT_KNEE_ABOVE_PEAK) {
		snprintf(buf, len, "> %s", tp);
		return false;
	}
	if (w->knee.kind == EVENT_KNEE_NONE || !(w->knee.tp > 0)) {
		snprintf(buf, len, "none");
		return false;
	}
	snprintf(buf, len, "%s", tp);
	return true;
}

/* Finished workloads with their knee and peak (h rows at y, x). */
static void dashboard_draw_finished(const struct dashboard *d, int y, int x, int h)
{
	int row = 2;

	if (h < 3)
		return;
	dashboard_put(y, x, DASHBOARD_SIDE_W, A_BOLD, "finished workloads");
	dashboard_put(y + 1, x, DASHBOARD_SIDE_W, A_UNDERLINE, "%-15s %-21s %-13s", "workload",
	              "knee", "peak");
	for (size_t i = 0; i < d->st.nwl && row < h; i++) {
		const struct dashstate_workload *w = &d->st.wl[i];
		char knee[128], peak[48];

		if (!w->done)
			continue;
		dashboard_fmt_knee(w, knee, sizeof(knee));
		dashboard_fmt_tp(w->peak_tp, w->unit, peak, sizeof(peak));
		dashboard_put(y + row++, x, DASHBOARD_SIDE_W, 0, "%-15.15s %-21.21s %-13s", w->name,
		              knee, peak);
	}
	if (row == 2)
		dashboard_put(y + 2, x, DASHBOARD_SIDE_W, A_DIM, "none yet");
}

/*
 * The plot of wl's points, w x h at (y, x), its marks coloured: the knee of a
 * finished workload, the bracket of a running one's knee so far.
 */
static void dashboard_draw_plot(const struct dashboard *d, const struct dashstate_workload *wl,
                                int y, int x, int w, int h)
{
	struct termplot_pt *pts = xcalloc(wl->npts + 1, sizeof(*pts));
	char *grid = xmalloc((size_t)h * (size_t)(w + 1)), ytitle[64], knee[128];
	struct termplot tp = {.pts = pts, .n = wl->npts, .slo = d->st.slo_us, .y_title = ytitle};
	struct termplot_area area;

	for (size_t i = 0; i < wl->npts; i++)
		pts[i] = (struct termplot_pt){wl->pts[i].x, wl->pts[i].y};
	tp.x_unit = strcmp(wl->unit, "MiB/s") == 0 ? "MiB/s" : "ops/s";
	snprintf(ytitle, sizeof(ytitle), "%s latency",
	         d->st.metric[0] ? d->st.metric : "SLO metric");
	if (wl->done && dashboard_fmt_knee(wl, knee, sizeof(knee))) {
		tp.knee_x = wl->knee.tp;
	} else if (!wl->done && wl->knee.kind == EVENT_KNEE_INTERPOLATED) {
		tp.bracket_lo = wl->knee.lo;
		tp.bracket_hi = wl->knee.hi;
	}
	if (termplot_render(&tp, w, h, grid, &area) == 0) {
		for (int r = 0; r < h; r++) {
			move(y + r, x);
			for (int c = 0; c < w && x + c < COLS; c++) {
				chtype ch = (unsigned char)grid[r * (w + 1) + c];
				bool cell = r >= area.y0 && r < area.y0 + area.h && c >= area.x0;

				if (cell && ch == '-')
					ch |= dashboard_colour(DASHBOARD_YELLOW, 0);
				else if (cell && (ch == '*' || ch == '^'))
					ch |= A_BOLD | dashboard_colour(DASHBOARD_CYAN, 0);
				else if (cell && (ch == 'K' || ch == '[' || ch == ']'))
					ch |= A_BOLD | dashboard_colour(DASHBOARD_GREEN, A_REVERSE);
				addch(ch);
			}
		}
	}
	free(grid);
	free(pts);
}

/*
 * The curve of the workload shown, w columns by h rows at (y, x): title, plot,
 * legend and, once the workload is done, the knee as the report words it.
 */
static void dashboard_draw_curve(const struct dashboard *d, int y, int x, int w, int h)
{
	int shown = d->shown >= 0 ? d->shown : d->st.cur_wl, n;
	const struct dashstate_workload *wl;
	char what[128], size[32], legend[256], tps[128];
	const char *state = "";
	int words = 0, brk = 0; /* rows for the knee in words; where its first one ends */

	if (shown < 0 || (size_t)shown >= d->st.nwl || h < 8)
		return;
	wl = &d->st.wl[shown];
	/* The sentence takes two rows when it must, broken at a space. */
	if (wl->done && wl->knee_text[0] != '\0' && h >= 10) {
		brk = (int)strlen(wl->knee_text);
		words = 1;
		if (brk > w && h >= 12) {
			for (brk = w; brk > 0 && wl->knee_text[brk] != ' '; brk--)
				;
			brk = brk > 0 ? brk : w;
			words = 2;
		}
	}
	if (wl->done)
		state = ", done";
	else if (shown == d->st.cur_wl && !d->st.finished)
		state = ", running";
	dashboard_put(y, x, w, A_BOLD, "Curve  %s", wl->name);
	dashboard_put(y, x + 7 + (int)strlen(wl->name), w - 7 - (int)strlen(wl->name), 0,
	              "  (workload %d/%.0f%s)", shown + 1, fmax(d->st.nwl_total, d->st.nwl), state);
	dashboard_draw_plot(d, wl, y + 1, x, w, h - 2 - words);
	/* What ran, right-aligned on the y title's line: the plot's subject at a glance. */
	units_format_size((uint64_t)wl->block_size, size, sizeof(size));
	n = snprintf(what, sizeof(what), "%s %s, qd %.0f x %.0f workers", wl->rw, size, wl->qd,
	             wl->workers);
	if (w - n > 20)
		dashboard_put(y + 1, x + w - n, n, A_DIM, "%s", what);
	dashboard_fmt_us(d->st.slo_us, size, sizeof(size));
	n = snprintf(legend, sizeof(legend), "* step  ^ above top  --- SLO %s", size);
	if (wl->done) {
		bool marked = dashboard_fmt_knee(wl, tps, sizeof(tps));

		snprintf(legend + n, sizeof(legend) - (size_t)n, "  %sknee %s", marked ? "K " : "",
		         tps);
	} else if (wl->knee.kind == EVENT_KNEE_INTERPOLATED) {
		dashboard_fmt_tp(wl->knee.tp, wl->unit, tps, sizeof(tps));
		snprintf(legend + n, sizeof(legend) - (size_t)n, "  [ ] knee ~%s", tps);
	}
	dashboard_put(y + h - 1 - words, x, w, A_DIM, "%s", legend);
	if (words > 0)
		dashboard_put(y + h - words, x, w, 0, "%.*s", brk, wl->knee_text);
	if (words > 1)
		dashboard_put(y + h - 1, x, w, 0, "  %s",
		              wl->knee_text + brk + (wl->knee_text[brk] == ' '));
}

static void dashboard_draw_status(const struct dashboard *d)
{
	int y = LINES - 1;

	if (d->prompt) {
		/* the end of a long text, where the typing is */
		const char *t = d->text;

		while (strlen(t) > (size_t)(COLS > 60 ? COLS - 50 : 10)) {
			t++;
			while (((unsigned char)*t & 0xc0) == 0x80)
				t++;
		}
		dashboard_put(y, 0, COLS, A_REVERSE | A_BOLD,
		              " mark the timeline: %s_   (Enter: stamp it, Esc: drop it) ", t);
	} else if (d->confirm) {
		dashboard_put(y, 0, COLS, A_REVERSE | A_BOLD, " cancel the campaign? (y/n) ");
	} else if (d->st.finished) {
		/* the end first: a notice (a retry's warning) is printed again after it */
		attr_t attr =
		    A_BOLD | (d->st.status == 0 ? dashboard_colour(DASHBOARD_GREEN, 0)
		                                : dashboard_colour(DASHBOARD_RED, A_REVERSE));

		/* degraded (status 3): its message says "campaign complete, degraded: ..." */
		dashboard_put(y, 0, COLS, attr, " %s%s%s%sresults in %s%s",
		              d->st.status == 0   ? "campaign complete"
		              : d->st.status == 3 ? ""
		                                  : "campaign failed",
		              d->st.status == 1 && d->st.message[0] ? ": " : "",
		              d->st.status != 0 ? d->st.message : "", d->sep, d->st.results,
		              d->cbs.on_detach != NULL ? "   (q: leave)" : "");
	} else if (d->notice_end > clock_now_ns()) {
		dashboard_put(y, 0, COLS, A_BOLD, " %s", d->notice);
	} else if (d->cancel_sent) {
		dashboard_put(y, 0, COLS, A_BOLD, " cancelling the campaign...");
	} else {
		dashboard_put(y, 0, COLS, A_DIM, " %s%s%s%s workload  s sort  ? help",
		              d->cbs.on_detach != NULL ? "q detach  " : "",
		              d->cbs.on_cancel != NULL ? "c cancel  " : "",
		              d->cbs.on_mark != NULL ? "m mark  " : "", d->arrows);
	}
}

static void dashboard_draw_help(const struct dashboard *d)
{
	const struct {
		const char *key, *text;
	} lines[] = {
	    {d->arrows, "show the previous or next workload's curve"},
	    {"s", "sort the agents by name, ops/s, mean or p99"},
	    {"c", d->cbs.on_cancel != NULL ? "cancel the campaign (asks first)" : NULL},
	    {"m", d->cbs.on_mark != NULL ? "mark the timeline: type a text, Enter" : NULL},
	    {"q", d->cbs.on_detach != NULL ? "detach: the campaign goes on without you" : NULL},
	    {"?", "close this help"},
	    {"", ""},
	    {"*", "a step: achieved throughput, SLO latency"},
	    {"^", "a step above the top of the plot"},
	    {"---", "the SLO"},
	    {"[ ]", "a step under the SLO, then one over: the knee"},
	    {"", "lies between (while the workload runs)"},
	    {"K", "the knee, once the workload is done"},
	    {"", ""},
	    {"", "The remaining time is an upper bound: ramps"},
	    {"", "stop early once the target saturates."},
	};
	const int n = (int)(sizeof(lines) / sizeof(lines[0]));
	int w = 58, h = n + 2, x0, y0, row = 1;

	w = w > COLS ? COLS : w;
	x0 = (COLS - w) / 2;
	y0 = LINES > h ? (LINES - h) / 2 : 0;
	for (int r = 0; r < h && y0 + r < LINES; r++)
		mvhline(y0 + r, x0, ' ', w);
	attron(A_BOLD);
	mvhline(y0, x0, ACS_HLINE, w);
	mvhline(y0 + h - 1, x0, ACS_HLINE, w);
	mvvline(y0, x0, ACS_VLINE, h);
	mvvline(y0, x0 + w - 1, ACS_VLINE, h);
	mvaddch(y0, x0, ACS_ULCORNER);
	mvaddch(y0, x0 + w - 1, ACS_URCORNER);
	mvaddch(y0 + h - 1, x0, ACS_LLCORNER);
	mvaddch(y0 + h - 1, x0 + w - 1, ACS_LRCORNER);
	attroff(A_BOLD);
	dashboard_put(y0, x0 + 2, w - 4, A_BOLD, " iocurve dashboard: help ");
	for (int i = 0; i < n; i++) {
		if (lines[i].text == NULL)
			continue;
		dashboard_put(y0 + row, x0 + 2, 7, A_BOLD, "%s", lines[i].key);
		dashboard_put(y0 + row++, x0 + 9, w - 11, 0, "%s", lines[i].text);
	}
}

long dashboard_clock(const struct dashboard *d)
{
	return d->st.started && !d->st.finished ? (long)dashstate_elapsed(&d->st) : -1;
}

/*
 * Lay the sections out on whatever screen there is: header and status line
 * first, then the agents, the curve with the fleet and finished tables beside
 * it (wide) or below (narrow); what does not fit is left out.
 */
void dashboard_draw(struct dashboard *d)
{
	int y = 2, end = LINES - 1, rem, agents_h, top_h, curve_w;
	bool side = COLS >= DASHBOARD_SIDE_W + 2 + DASHBOARD_CURVE_MIN;

	erase();
	dashboard_draw_header(d);
	if (LINES >= 2)
		dashboard_draw_status(d);
	if (end - y > 12)
		y++; /* a blank line under the header, when there is room */
	rem = end - y;
	agents_h = d->st.nagents + 1 < 2 ? 2 : (int)d->st.nagents + 1;
	agents_h = agents_h > rem ? rem : agents_h;
	/*
	 * The curve takes the rows the agents leave: a tall terminal gets a taller
	 * plot (finer latency steps), up to twice the usual height.
	 */
	top_h =
	    rem - agents_h - 1 > 2 * DASHBOARD_CURVE_H ? 2 * DASHBOARD_CURVE_H : rem - agents_h - 1;
	curve_w = side ? COLS - DASHBOARD_SIDE_W - 2 : COLS;
	curve_w = curve_w > DASHBOARD_CURVE_W ? DASHBOARD_CURVE_W : curve_w;
	if (top_h >= 8) {
		dashboard_draw_curve(d, y, 0, curve_w, top_h);
		if (side) {
			int oh = dashboard_observed_h(d), fy = y + 8 + (oh ? oh + 1 : 0);

			dashboard_draw_fleet(d, y, curve_w + 2, top_h < 7 ? top_h : 7);
			dashboard_draw_observed(d, y + 8, curve_w + 2, top_h - 8);
			dashboard_draw_finished(d, fy, curve_w + 2, y + top_h - fy);
		}
		y += top_h + 1;
	}
	if (agents_h > 0)
		dashboard_draw_agents(d, y, agents_h);
	y += agents_h + 1;
	if ((!side || top_h < 8) && end - y >= 3) {
		int fleet_h = end - y < 7 ? end - y : 7;

		int oh = dashboard_observed_h(d);

		dashboard_draw_fleet(d, y, 1, fleet_h);
		y += fleet_h + 1;
		if (oh > 0 && end - y > oh + 3) {
			dashboard_draw_observed(d, y, 1, oh);
			y += oh + 1;
		}
		dashboard_draw_finished(d, y, 1, end - y);
	}
	if (d->help)
		dashboard_draw_help(d);
	wnoutrefresh(stdscr);
	doupdate();
	d->dirty = false;
	d->drawn_sec = dashboard_clock(d);
}
