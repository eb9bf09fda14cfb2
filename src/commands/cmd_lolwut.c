/* cmd_lolwut: LOLWUT [VERSION v] [args...], as Redis 7.0 answers it.
 *
 * Redis 7.0 has no artwork of its own: plain LOLWUT answers the version
 * line "Redis ver. 7.0.15". VERSION 5 draws Georg Nees' "Schotter" (a grid
 * of squares, more and more rotated and displaced row after row) in
 * Braille characters, 2x4 pixels each; VERSION 6 a skyline of
 * skyscrapers in the four grays of a colour terminal, after the 8 bit
 * game Plaguemon. Both take the same optional integers as Redis's
 * (columns, squares per row, squares per column for 5; columns and rows
 * for 6), clamped to the same bounds, and compute with the same float
 * arithmetic so that the parts without randomness (the first two rows of
 * squares) are drawn pixel for pixel as Redis draws them. Main thread
 * only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "util.h"
#include "vbuf.h"

/* ---- a canvas of small integers (colours) ---- */

typedef struct canvas {
    int w, h;
    unsigned char *px;
} canvas;

static canvas canvas_new(int w, int h, int bg) {
    canvas cv = {w, h, xmalloc((size_t)w * (size_t)h)};
    memset(cv.px, bg, (size_t)w * (size_t)h);
    return cv;
}

static void put(canvas *cv, int x, int y, int color) {
    if (x >= 0 && x < cv->w && y >= 0 && y < cv->h) cv->px[y * cv->w + x] = (unsigned char)color;
}

static int get(const canvas *cv, int x, int y) {
    return x >= 0 && x < cv->w && y >= 0 && y < cv->h ? cv->px[y * cv->w + x] : 0;
}

/* Bresenham's line from (x0, y0) to (x1, y1), both ends drawn. */
static void line(canvas *cv, int x0, int y0, int x1, int y1) {
    int dx = abs(x1 - x0), dy = abs(y1 - y0);
    int stepx = x0 < x1 ? 1 : -1, stepy = y0 < y1 ? 1 : -1;
    int err = dx - dy;
    for (;;) {
        put(cv, x0, y0, 1);
        if (x0 == x1 && y0 == y1) return;
        int twice = 2 * err;
        if (twice > -dy) {
            err -= dy;
            x0 += stepx;
        }
        if (twice < dx) {
            err += dx;
            y0 += stepy;
        }
    }
}

/* The outline of a square of side `side` centred on (cx, cy), turned by
 * `angle` radians: its corners are on the circle through them, a quarter
 * turn apart, the first at 45 degrees plus the angle. */
static void square(canvas *cv, int cx, int cy, float side, float angle) {
    float radius = (float)(side / 1.4142135623); /* side / sqrt(2) */
    radius = (float)round(radius);
    int xs[4], ys[4];
    float a = (float)(M_PI / 4 + angle);
    for (int i = 0; i < 4; i++) {
        xs[i] = (int)round(sin(a) * radius + cx);
        ys[i] = (int)round(cos(a) * radius + cy);
        a = (float)(a + M_PI / 2);
    }
    for (int i = 0; i < 4; i++) line(cv, xs[i], ys[i], xs[(i + 1) % 4], ys[(i + 1) % 4]);
}

/* A random number in [0, row / per_col] (Schotter's disorder grows row
 * after row), in Redis's order of float operations. */
static float jitter(int per_col, int row) {
    return (float)rand() / (float)RAND_MAX / (float)per_col * (float)row;
}

/* ---- version 5: Schotter ---- */

static canvas schotter(int cols, int per_row, int per_col) {
    int width = cols * 2;
    int pad = width > 4 ? 2 : 0;
    float side = (float)(width - pad * 2) / (float)per_row;
    int height = (int)(side * (float)per_col + (float)(pad * 2));
    canvas cv = canvas_new(width, height, 0);
    for (int row = 0; row < per_col; row++) {
        for (int col = 0; col < per_row; col++) {
            int cx = (int)((float)col * side + side / 2 + (float)pad);
            int cy = (int)((float)row * side + side / 2 + (float)pad);
            float angle = 0;
            if (row > 1) { /* the first two rows stand straight */
                float turn = jitter(per_col, row);
                float dx = jitter(per_col, row);
                float dy = jitter(per_col, row);
                if (rand() % 2) turn = -turn;
                if (rand() % 2) dx = -dx;
                if (rand() % 2) dy = -dy;
                angle = turn;
                cx = (int)((float)cx + dx * side / 3);
                cy = (int)((float)cy + dy * side / 3);
            }
            square(&cv, cx, cy, side, angle);
        }
    }
    return cv;
}

/* Each 2x4 block of pixels as one Braille character (U+2800 + its dots:
 * bits 0-2 the left column's top three, 3-5 the right's, 6 and 7 the
 * bottom pair), in UTF-8. */
static void render_braille(const canvas *cv, vbuf *out) {
    static const int dx[8] = {0, 0, 0, 1, 1, 1, 0, 1}, dy[8] = {0, 1, 2, 0, 1, 2, 3, 3};
    for (int y = 0; y < cv->h; y += 4) {
        for (int x = 0; x < cv->w; x += 2) {
            int dots = 0;
            for (int b = 0; b < 8; b++)
                if (get(cv, x + dx[b], y + dy[b])) dots |= 1 << b;
            int cp = 0x2800 + dots;
            char u[3] = {(char)(0xE0 | (cp >> 12)), (char)(0x80 | ((cp >> 6) & 0x3F)),
                         (char)(0x80 | (cp & 0x3F))};
            vbuf_append(out, u, 3);
        }
        if (y != cv->h - 1) vbuf_append(out, "\n", 1); /* as Redis: after the last row too */
    }
}

/* ---- version 6: the skyline ---- */

typedef struct building {
    int left, width, height, windows, color;
} building;

/* A building standing on the bottom row; its roof row is two pixels
 * narrower on each side; windows (two pixels wide, one tall, a random
 * gray other than the wall's) on every other row and pair of columns of
 * its inner part. */
static void building_draw(canvas *cv, const building *b) {
    int bottom = cv->h - 1, top = bottom - b->height + 1;
    for (int y = bottom; y >= top; y--) {
        for (int x = b->left; x < b->left + b->width; x++) {
            if (y == top && (x <= b->left + 1 || x >= b->left + b->width - 2)) continue;
            int color = b->color;
            int inner = x > b->left + 1 && x < b->left + b->width - 2 && y > top + 1 &&
                        y < bottom - 1;
            if (b->windows && inner) {
                int rx = x - (b->left + 1), ry = y - (top + 1);
                if ((rx / 2) % 2 && ry % 2) {
                    do color = 1 + rand() % 2;
                    while (color == b->color);
                    if (rx % 2) color = get(cv, x - 1, y); /* one window, one colour */
                }
            }
            put(cv, x, y, color);
        }
    }
}

static void skyline(canvas *cv) {
    building b;
    /* the background, lighter gray behind darker, no windows */
    for (int color = 2; color >= 1; color--) {
        b.color = color;
        for (int x = -10; x < cv->w;) {
            x += rand() % 8;
            b.left = x;
            b.width = 10 + rand() % 9;
            b.height = cv->h / 2 + (rand() % cv->h) / (color == 2 ? 2 : 3);
            b.windows = 0;
            building_draw(cv, &b);
            x += color == 2 ? b.width / 2 : b.width + 1;
        }
    }
    /* the black foreground, with windows */
    b.color = 0;
    for (int x = -10; x < cv->w;) {
        x += rand() % 8;
        b.left = x;
        b.width = 5 + rand() % 14;
        if (b.width % 4) b.width += b.width % 3;
        b.height = cv->h / 3 + (rand() % cv->h) / 2;
        b.windows = 1;
        building_draw(cv, &b);
        x += b.width + 5;
    }
}

/* Each pixel a blank in its gray, foreground and background both set
 * (the terminals' escapes for black, dark gray, light gray, white). */
static void render_grays(const canvas *cv, vbuf *out) {
    static const char *const esc[4] = {"0;30;40m", "0;90;100m", "0;37;47m", "0;97;107m"};
    for (int y = 0; y < cv->h; y++) {
        for (int x = 0; x < cv->w; x++) vbuf_appendf(out, "\033[%s \033[0m", esc[get(cv, x, y) & 3]);
        if (y != cv->h - 1) vbuf_append(out, "\n", 1);
    }
}

/* ---- the command ---- */

static long clamp(long v, long lo, long hi) { return v < lo ? lo : v > hi ? hi : v; }

/* The optional integers args[0..n) into vals (defaults kept); 0 after
 * replying the error. */
static int int_args(client *c, const arg *args, int n, long *vals, int max) {
    for (int i = 0; i < n && i < max; i++) {
        long long v;
        if (!arg_ll(c, &args[i], &v)) return 0;
        vals[i] = (long)v;
    }
    return 1;
}

static void version_line(vbuf *out) {
    vbuf_append_str(out, "Redis ver. " VERSO_REDIS_VERSION "\n");
}

void cmd_lolwut(client *c) {
    long version = 7; /* this server's major version: no artwork */
    const arg *rest = c->argv + 1;
    int nrest = c->argc - 1;
    if (c->argc >= 3 && arg_is(&c->argv[1], "version")) {
        long long v;
        if (!arg_ll(c, &c->argv[2], &v)) return;
        /* Redis picks by the text "%u.0.0" of the number: 5 and 6 have art */
        unsigned u = (unsigned)v;
        version = u == 5 || u == 6 ? (long)u : 7;
        rest += 2;
        nrest -= 2;
    }
    vbuf out = {0};
    if (version == 5) {
        long vals[3] = {66, 8, 12}; /* columns, squares per row, per column */
        if (!int_args(c, rest, nrest, vals, 3)) return;
        canvas cv = schotter((int)clamp(vals[0], 1, 1000), (int)clamp(vals[1], 1, 200),
                             (int)clamp(vals[2], 1, 200));
        render_braille(&cv, &out);
        free(cv.px);
        vbuf_append_str(&out, "\nGeorg Nees - schotter, plotter on paper, 1968. ");
    } else if (version == 6) {
        long vals[2] = {80, 20}; /* columns, rows */
        if (!int_args(c, rest, nrest, vals, 2)) return;
        canvas cv = canvas_new((int)clamp(vals[0], 1, 1000), (int)clamp(vals[1], 1, 1000), 3);
        skyline(&cv);
        render_grays(&cv, &out);
        free(cv.px);
        vbuf_append_str(&out, "\nDedicated to the 8 bit game developers of past and present.\n"
                              "Original 8 bit image from Plaguemon by hikikomori. ");
    }
    version_line(&out);
    reply_verbatim(c, out.data, out.len, "txt");
    vbuf_free(&out);
}
