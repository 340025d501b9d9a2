/* The text of one HWPX section part (part of hwpscan.formats._readers): the XML walk of
 * the package reader (_hwpx_package.c), held to hwpscan.formats.hwpx_xml.section_text
 * (an expat walk), the reference.
 *
 * hwpscan_hwpx_walk() gives the paragraph texts of a whole section part (UTF-8 XML) in
 * document order, exactly what section_text adds to its walk's slots. It reads a plain
 * subset of XML and declines anything else, so that expat gives the text, the error or
 * the budget message: invalid UTF-8, a character XML forbids, a CR, a DTD or any <!...>
 * but a comment or CDATA, a PI named xml past the start, an XML declaration other than
 * 1.0 in UTF-8, a non-ASCII name, a prefix not declared on the root (or a declaration
 * below it), an attribute prefix other than xml:, a duplicate attribute, an unknown
 * entity or bad character reference, "]]>" in text, text outside the root, a mismatched
 * or missing end tag, more than max_depth levels or max_paragraphs paragraphs. It never
 * accepts what expat refuses. tests/formats/test_native_hwpx_walk.py drives both over
 * fixtures and mutants, through the package reader.
 *
 * The input is hostile: every read is bounded by the buffer, the element stack by
 * max_depth. A part not ending with '>' (and whitespace) is declined at once, so the
 * scans of names, whitespace and values stop at that '>' without a length test.
 *
 * Cost: most start tags of a Hancom section repeat the last one of their name byte for
 * byte, or but for attribute values; below the root such a tag is compared with that
 * one instead of being parsed again (see start_tag()). */
#include "_hwpx.h"
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum kind {
    K_OTHER,
    K_P,
    K_RUN,
    K_T,
    K_LINEBREAK,
    K_TAB,
    K_CTRL,
    K_NBSPACE,
    K_FWSPACE,
    K_HYPHEN,
    K_MARKPEN_BEGIN,
    K_MARKPEN_END,
    K_COUNT /* how many kinds: the size of a table by kind */
};

#define MAX_PREFIXES 64

typedef struct {
    char *data;
    Py_ssize_t len, cap;
} Buf;

static int buf_add(Buf *b, const char *s, Py_ssize_t n) {
    if (n <= 0)
        return 0;
    if (b->len + n > b->cap) {
        Py_ssize_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n)
            cap *= 2;
        char *grown = PyMem_Realloc(b->data, (size_t)cap);
        if (grown == NULL)
            return PyErr_NoMemory(), -1;
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, (size_t)n);
    b->len += n;
    return 0;
}

typedef struct {
    int depth;
    Py_ssize_t slot;
    int capture, mute;
    Buf parts;
} Para;

#define SEEN_SLOTS 64
#define SEEN_VALUES 16

/* A start tag read and accepted below the root: s[at:at+len] from past its '<' to past
 * its '>', its name's length, its kind and what its attributes said; the spans of its
 * attribute values in s (n_values of them, -1 for more than SEEN_VALUES) and which of
 * them is the id a ctrl is read by (or -1). */
typedef struct {
    Py_ssize_t at, len, name_len;
    unsigned char kind, ctrl_tab, empty;
    int n_values, id_value;
    Py_ssize_t value_at[SEEN_VALUES], value_len[SEEN_VALUES];
} Seen;

typedef struct {
    const unsigned char *s;
    Py_ssize_t n, pos;
    int max_depth;
    Py_ssize_t max_paragraphs, paragraphs;
    int depth;
    unsigned char *kinds;        /* kinds[d]: the kind of the open element at depth d */
    Py_ssize_t *name_at, *name_len; /* its qualified name in s, for the end tag */
    Para *paras;
    int n_paras;
    PyObject *slots;
    Py_ssize_t prefix_at[MAX_PREFIXES], prefix_len[MAX_PREFIXES];
    int n_prefixes;
    int failed; /* 1: decline; -1: a Python error is set */
    TagSink sink; /* hwpscan_hwpx_walk(): told each start tag, with ctx */
    void *ctx;
    /* a section walk (no sink): start tags read, by a hash of their names (last: see
     * clear()) */
    Seen seen[SEEN_SLOTS];
} St;

/* Whether s[0:n] is valid UTF-8 holding only characters XML 1.0 allows, without CR. */
static int plain_utf8(const unsigned char *s, Py_ssize_t n) {
    Py_ssize_t i = 0;
    while (i < n) {
        /* Sixteen ASCII bytes of 0x20 or more (the markup's runs): neither a byte nor the
         * byte less 0x20 has its high bit set. A borrow into a byte comes only from a
         * byte under 0x20 below it, which is caught itself. Not tried on a non-ASCII
         * byte: Korean text runs on, a character after another. */
        while (i + 16 <= n && s[i] < 0x80) {
            uint64_t w0, w1;
            memcpy(&w0, s + i, 8);
            memcpy(&w1, s + i + 8, 8);
            uint64_t any = (w0 - 0x2020202020202020ull) | w0 | (w1 - 0x2020202020202020ull) | w1;
            if (any & 0x8080808080808080ull)
                break;
            i += 16;
        }
        if (i >= n)
            break;
        if (i + 8 <= n && s[i] < 0x80) { /* eight ASCII bytes of 0x20 or more */
            uint64_t w;
            memcpy(&w, s + i, 8);
            uint64_t high = w & 0x8080808080808080ull;
            uint64_t low = (w - 0x2020202020202020ull) & ~w & 0x8080808080808080ull;
            if ((high | low) == 0) {
                i += 8;
                continue;
            }
        }
        unsigned char c = s[i];
        if (c < 0x80) {
            if (c < 0x20 && c != 0x09 && c != 0x0A)
                return 0;
            i++;
        } else if (c >= 0xC2 && c <= 0xDF) {
            if (i + 1 >= n || (s[i + 1] & 0xC0) != 0x80)
                return 0;
            i += 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            if (i + 2 >= n || (s[i + 1] & 0xC0) != 0x80 || (s[i + 2] & 0xC0) != 0x80)
                return 0;
            if (c == 0xE0 && s[i + 1] < 0xA0)
                return 0; /* overlong */
            if (c == 0xED && s[i + 1] >= 0xA0)
                return 0; /* a surrogate */
            if (c == 0xEF && s[i + 1] == 0xBF && (s[i + 2] == 0xBE || s[i + 2] == 0xBF))
                return 0; /* U+FFFE, U+FFFF */
            i += 3;
        } else if (c >= 0xF0 && c <= 0xF4) {
            if (i + 3 >= n || (s[i + 1] & 0xC0) != 0x80 || (s[i + 2] & 0xC0) != 0x80 ||
                (s[i + 3] & 0xC0) != 0x80)
                return 0;
            if (c == 0xF0 && s[i + 1] < 0x90)
                return 0;
            if (c == 0xF4 && s[i + 1] >= 0x90)
                return 0;
            i += 4;
        } else {
            return 0;
        }
    }
    return 1;
}

/* Character classes of ASCII bytes (set up once, in the module's init). */
#define C_START 1 /* may start a name */
#define C_NAME 2  /* may continue a name (not ':') */
#define C_WS 4    /* XML whitespace here (CR is declined before) */
#define C_TEXT 8  /* ends a plain run of character data: '<', '&', ']' */
#define C_VALUE 16 /* stops the scan of an attribute value: quotes, '<', '&', '>' */
static unsigned char cls[256];

static void init_classes(void) {
    for (int c = 0; c < 256; c++) {
        unsigned char k = 0;
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_')
            k |= C_START | C_NAME;
        if ((c >= '0' && c <= '9') || c == '.' || c == '-')
            k |= C_NAME;
        if (c == ' ' || c == '\t' || c == '\n')
            k |= C_WS;
        if (c == '<' || c == '&' || c == ']')
            k |= C_TEXT;
        if (c == '"' || c == '\'' || c == '<' || c == '&' || c == '>')
            k |= C_VALUE;
        cls[c] = k;
    }
}

static int is_ws(unsigned char c) { return cls[c] & C_WS; }
static int name_start(unsigned char c) { return cls[c] & C_START; }

/* Past any whitespace at pos (< n): whether there was some. No bound in the loop: the
 * last byte is '>'. */
static int skip_ws(St *st) {
    if (!is_ws(st->s[st->pos]))
        return 0;
    do
        st->pos++;
    while (is_ws(st->s[st->pos]));
    return 1;
}

static int starts(St *st, const char *lit) {
    size_t k = strlen(lit);
    return st->pos + (Py_ssize_t)k <= st->n && memcmp(st->s + st->pos, lit, k) == 0;
}

/* A qualified name (NCName or NCName:NCName) at pos; its length in *len and the
 * offset of the colon (or -1) in *colon. 0: none there. The loop needs no bound: run()
 * only walks a buffer whose last byte is '>', which ends any name. */
static int read_qname(St *st, Py_ssize_t *len, Py_ssize_t *colon) {
    const unsigned char *s = st->s;
    Py_ssize_t p = st->pos;
    *colon = -1;
    if (p >= st->n || !name_start(s[p]))
        return 0;
    p++;
    for (;;) {
        /* four bytes a turn; each read is past a name byte, so before the last '>' */
        while ((cls[s[p]] & C_NAME) && (cls[s[p + 1]] & C_NAME) && (cls[s[p + 2]] & C_NAME) &&
               (cls[s[p + 3]] & C_NAME))
            p += 4;
        while (cls[s[p]] & C_NAME)
            p++;
        if (s[p] != ':')
            break;
        if (*colon >= 0 || !name_start(s[p + 1])) /* p + 1 < n: s[p] is not the last '>' */
            return 0;
        *colon = p - st->pos;
        p++;
    }
    *len = p - st->pos;
    st->pos = p;
    return 1;
}

static int encode_utf8(unsigned long cp, char *out) {
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* The reference at s[p] (just past '&') ending with ';': its UTF-8 in out, its length
 * in *used (past the ';'). 0: not one expat accepts without a DTD. */
static int reference(const unsigned char *s, Py_ssize_t p, Py_ssize_t n, char *out, int *out_len,
                     Py_ssize_t *used) {
    static const struct {
        const char *name;
        char ch;
    } named[] = {{"lt;", '<'}, {"gt;", '>'}, {"amp;", '&'}, {"quot;", '"'}, {"apos;", '\''}};
    for (size_t k = 0; k < sizeof named / sizeof named[0]; k++) {
        size_t len = strlen(named[k].name);
        if (p + (Py_ssize_t)len <= n && memcmp(s + p, named[k].name, len) == 0) {
            out[0] = named[k].ch;
            *out_len = 1;
            *used = (Py_ssize_t)len;
            return 1;
        }
    }
    if (p >= n || s[p] != '#')
        return 0;
    Py_ssize_t q = p + 1;
    int hex = q < n && s[q] == 'x';
    if (hex)
        q++;
    unsigned long cp = 0;
    Py_ssize_t digits = 0;
    for (; q < n && s[q] != ';'; q++, digits++) {
        unsigned char c = s[q];
        int v;
        if (c >= '0' && c <= '9')
            v = c - '0';
        else if (hex && c >= 'a' && c <= 'f')
            v = c - 'a' + 10;
        else if (hex && c >= 'A' && c <= 'F')
            v = c - 'A' + 10;
        else
            return 0;
        cp = cp * (hex ? 16 : 10) + (unsigned long)v;
        if (cp > 0x10FFFF || digits > 8)
            return 0;
    }
    if (q >= n || digits == 0)
        return 0;
    int allowed = cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
                  (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
    if (!allowed)
        return 0;
    *out_len = encode_utf8(cp, out);
    *used = q + 1 - p;
    return 1;
}

static enum kind kind_of(const unsigned char *name, Py_ssize_t len) {
    static const struct {
        const char *name;
        enum kind kind;
    } known[] = {{"p", K_P},
                 {"run", K_RUN},
                 {"t", K_T},
                 {"lineBreak", K_LINEBREAK},
                 {"tab", K_TAB},
                 {"ctrl", K_CTRL},
                 {"nbSpace", K_NBSPACE},
                 {"fwSpace", K_FWSPACE},
                 {"hyphen", K_HYPHEN},
                 {"markpenBegin", K_MARKPEN_BEGIN},
                 {"markpenEnd", K_MARKPEN_END}};
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
        if (strlen(known[k].name) == (size_t)len && memcmp(known[k].name, name, (size_t)len) == 0)
            return known[k].kind;
    }
    return K_OTHER;
}

/* hwpx_xml._INLINE: the character an inline element of hp:t stands for ("" for
 * markpens), by kind; NULL for an element that is not inline. */
static const char *const INLINE_TEXT[K_COUNT] = {
    [K_LINEBREAK] = "\n",
    [K_NBSPACE] = "\xc2\xa0",
    [K_FWSPACE] = "\xe3\x80\x80",
    [K_TAB] = "\t",
    [K_HYPHEN] = "\xc2\xad",
    [K_MARKPEN_BEGIN] = "",
    [K_MARKPEN_END] = "",
};

static int add_text(St *st, const char *s, Py_ssize_t n) {
    for (int i = 0; i < st->n_paras; i++) {
        Para *para = &st->paras[i];
        if (para->capture && !para->mute && buf_add(&para->parts, s, n) < 0)
            return -1;
    }
    return 0;
}

/* section_text's start handler. */
static int on_start(St *st, enum kind local, int ctrl_tab) {
    int depth = ++st->depth;
    st->kinds[depth] = (unsigned char)local;
    const char *inl = INLINE_TEXT[local];
    /* only hp:t, a ctrl or an inline element changes what an open paragraph holds */
    int reads = inl != NULL || local == K_T || local == K_CTRL;
    for (int i = 0; reads && i < st->n_paras; i++) {
        Para *para = &st->paras[i];
        if (para->capture) {
            if (!para->mute && inl != NULL) {
                if (inl[0] && buf_add(&para->parts, inl, (Py_ssize_t)strlen(inl)) < 0)
                    return -1;
                para->mute = depth;
            }
        } else if (depth == para->depth + 2 && st->kinds[para->depth + 1] == K_RUN) {
            if (local == K_T)
                para->capture = depth;
            else if (local == K_LINEBREAK) {
                if (buf_add(&para->parts, "\n", 1) < 0)
                    return -1;
            } else if (local == K_TAB || (local == K_CTRL && ctrl_tab)) {
                if (buf_add(&para->parts, "\t", 1) < 0)
                    return -1;
            }
        }
    }
    if (local == K_P) {
        if (++st->paragraphs > st->max_paragraphs) {
            st->failed = 1;
            return -1;
        }
        Py_ssize_t slot = PyList_GET_SIZE(st->slots);
        if (PyList_Append(st->slots, Py_None) < 0)
            return -1;
        Para *para = &st->paras[st->n_paras++];
        para->depth = depth;
        para->slot = slot;
        para->capture = para->mute = 0;
        para->parts.data = NULL;
        para->parts.len = para->parts.cap = 0;
    }
    return 0;
}

/* The code point of the UTF-8 sequence at s (valid, of n bytes by its lead). */
static Py_UCS4 utf8_at(const unsigned char *s, int n) {
    switch (n) {
    case 1:
        return s[0];
    case 2:
        return (Py_UCS4)(s[0] & 0x1F) << 6 | (s[1] & 0x3F);
    case 3:
        return (Py_UCS4)(s[0] & 0x0F) << 12 | (Py_UCS4)(s[1] & 0x3F) << 6 | (s[2] & 0x3F);
    default:
        return (Py_UCS4)(s[0] & 0x07) << 18 | (Py_UCS4)(s[1] & 0x3F) << 12 |
               (Py_UCS4)(s[2] & 0x3F) << 6 | (s[3] & 0x3F);
    }
}

/* The length of the UTF-8 sequence whose lead byte is c. */
static int utf8_len(unsigned char c) { return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4; }

/* Write the n characters of s[0:len] (valid UTF-8) into data, of the given kind: the
 * number of bytes read. UCS-2, Korean text's kind, is written without a switch per
 * character. */
static Py_ssize_t utf8_write(const unsigned char *s, Py_ssize_t len, int kind, void *data,
                             Py_ssize_t n) {
    Py_ssize_t i = 0, k = 0;
    if (kind == PyUnicode_2BYTE_KIND) {
        Py_UCS2 *out = data;
        for (; k < n && i < len; k++) {
            int step = utf8_len(s[i]);
            if (step > 3 || i + step > len)
                break;
            out[k] = (Py_UCS2)utf8_at(s + i, step);
            i += step;
        }
    } else {
        for (; k < n && i < len; k++) {
            int step = utf8_len(s[i]);
            if (i + step > len)
                break;
            PyUnicode_WRITE(kind, data, k, utf8_at(s + i, step));
            i += step;
        }
    }
    return k == n ? i : -1;
}

/* A paragraph's text s[0:n] (valid UTF-8) as a str, in two plain passes: count the
 * characters and find the greatest byte (its range gives the kind), then write them.
 * Python's decoder costs several times as much on short Korean runs. */
static PyObject *utf8_str(const unsigned char *s, Py_ssize_t n) {
    Py_ssize_t chars = 0;
    unsigned char widest = 0;
    for (Py_ssize_t i = 0; i < n; i++) { /* no branch: the compiler makes it wide */
        chars += (s[i] & 0xC0) != 0x80;
        widest = s[i] > widest ? s[i] : widest;
    }
    Py_UCS4 maxchar = widest < 0x80 ? 0x7F : widest < 0xC4 ? 0xFF : widest < 0xF0 ? 0xFFFF : 0x10FFFF;
    PyObject *text = PyUnicode_New(chars, maxchar);
    if (text == NULL || maxchar == 0x7F) {
        if (text != NULL && n > 0)
            memcpy(PyUnicode_DATA(text), s, (size_t)n);
        return text;
    }
    if (utf8_write(s, n, PyUnicode_KIND(text), PyUnicode_DATA(text), chars) != n) {
        Py_DECREF(text); /* not valid UTF-8 after all: the decoder's own verdict */
        return PyUnicode_DecodeUTF8((const char *)s, n, "strict");
    }
    return text;
}

/* section_text's end handler. */
static int on_end(St *st) {
    int depth = st->depth;
    for (int i = 0; i < st->n_paras; i++) {
        Para *para = &st->paras[i];
        if (para->mute == depth)
            para->mute = 0;
        if (para->capture == depth)
            para->capture = 0;
    }
    if (st->n_paras && st->paras[st->n_paras - 1].depth == depth) {
        Para *para = &st->paras[--st->n_paras];
        PyObject *text = utf8_str((const unsigned char *)para->parts.data, para->parts.len);
        PyMem_Free(para->parts.data);
        para->parts.data = NULL;
        if (text == NULL)
            return -1;
        if (PyList_SetItem(st->slots, para->slot, text) < 0) /* steals text */
            return -1;
    }
    st->depth--;
    return 0;
}

#define DECLINE                                                                               \
    do {                                                                                      \
        st->failed = 1;                                                                       \
        return -1;                                                                            \
    } while (0)

/* Whether the prefix s[at:at+len] is declared on the root. */
static int declared_prefix(St *st, Py_ssize_t at, Py_ssize_t len) {
    for (int i = 0; i < st->n_prefixes; i++) {
        const unsigned char *declared = st->s + st->prefix_at[i];
        if (st->prefix_len[i] == len && memcmp(declared, st->s + at, (size_t)len) == 0)
            return 1;
    }
    return 0;
}

/* The character of an attribute value at *p (before end) as expat gives it, into
 * piece: a reference decoded, a whitespace character turned into a space (attribute-
 * value normalisation); *p moves past it. 0: a reference that is not read. */
static int value_piece(St *st, Py_ssize_t *p, Py_ssize_t end, char *piece, int *piece_len) {
    unsigned char c = st->s[*p];
    *piece_len = 1;
    if (c == '&') {
        Py_ssize_t used;
        if (!reference(st->s, *p + 1, end, piece, piece_len, &used))
            return 0;
        *p += 1 + used;
    } else {
        piece[0] = is_ws(c) ? ' ' : (char)c;
        *p += 1;
    }
    return 1;
}

/* Whether the name s[at:at+len] is one of the first n of a tag's attribute names. */
static int duplicate(St *st, const Py_ssize_t *attr_at, const Py_ssize_t *attr_len, int n,
                     Py_ssize_t at, Py_ssize_t len) {
    for (int i = 0; i < n; i++) {
        if (attr_len[i] == len && memcmp(st->s + attr_at[i], st->s + at, (size_t)len) == 0)
            return 1;
    }
    return 0;
}

/* The quoted value from pos (its opening quote): its span in *v_at, *v_len, and whether
 * it holds a '&' in *amp; pos past its closing quote. 1: declined (no quote, no closing
 * quote, or a '<' in it). The loop stops only at the bytes C_VALUE marks, the last '>'
 * among them, so it needs no bound of its own. */
static int value_span(St *st, Py_ssize_t *v_at, Py_ssize_t *v_len, int *amp) {
    const unsigned char *s = st->s;
    unsigned char quote = s[st->pos];
    if (quote != '"' && quote != '\'')
        return 1;
    Py_ssize_t q = *v_at = st->pos + 1;
    *amp = 0;
    for (;; q++) {
        while (!(cls[s[q]] & C_VALUE))
            q++;
        unsigned char c = s[q];
        if (c == quote)
            break;
        if (c == '<' || q + 1 >= st->n) /* a '<', or the last '>' reached */
            return 1;
        *amp |= c == '&';
    }
    *v_len = q - *v_at;
    st->pos = q + 1;
    return 0;
}

/* Whether each '&' of the value s[at:at+len] starts a reference expat accepts. */
static int references_ok(St *st, Py_ssize_t at, Py_ssize_t len) {
    for (Py_ssize_t p = at; p < at + len; p++) {
        if (st->s[p] == '&') {
            char piece[4];
            int piece_len;
            Py_ssize_t used;
            if (!reference(st->s, p + 1, at + len, piece, &piece_len, &used))
                return 0;
            p += used;
        }
    }
    return 1;
}

/* Whether the (checked) value s[at:at+len], decoded as expat decodes it, is "tab" in
 * any case: what an id makes of a ctrl. */
static int value_is_tab(St *st, Py_ssize_t at, Py_ssize_t len) {
    char value[8];
    int value_len = 0, overflow = 0;
    for (Py_ssize_t p = at; p < at + len;) {
        char piece[4];
        int piece_len;
        if (!value_piece(st, &p, at + len, piece, &piece_len))
            return 0;
        if (value_len + piece_len <= (int)sizeof value) {
            memcpy(value + value_len, piece, (size_t)piece_len);
            value_len += piece_len;
        } else {
            overflow = 1;
        }
    }
    return !overflow && value_len == 3 && (value[0] | 0x20) == 't' &&
           (value[1] | 0x20) == 'a' && (value[2] | 0x20) == 'b';
}

/* A namespace declaration xmlns:prefix="value" (a_colon 5) or xmlns="value" (a_colon
 * -1) on the root: 0 when read, 1 to decline. Expat refuses a reserved prefix declared
 * and a reserved namespace name bound (Namespaces in XML 1.0, section 3): a value naming
 * the W3C's site or holding a reference is left to it, whatever the prefix, and so is
 * one holding '}', the separator hwpx_xml.parse_xml gives expat (which then refuses). */
static int declaration(St *st, Py_ssize_t a_at, Py_ssize_t a_len, Py_ssize_t a_colon,
                       Py_ssize_t v_at, Py_ssize_t v_len) {
    const unsigned char *a = st->s + a_at, *v = st->s + v_at;
    for (Py_ssize_t i = 0; i < v_len; i++) {
        if (v[i] == '&' || v[i] == '}' || (i + 7 <= v_len && memcmp(v + i, "w3.org/", 7) == 0))
            return 1;
    }
    if (a_colon != 5)
        return 0;
    Py_ssize_t p_len = a_len - 6;
    if ((p_len == 3 && memcmp(a + 6, "xml", 3) == 0) ||
        (p_len == 5 && memcmp(a + 6, "xmlns", 5) == 0) || v_len == 0 ||
        st->n_prefixes >= MAX_PREFIXES)
        return 1;
    st->prefix_at[st->n_prefixes] = a_at + 6;
    st->prefix_len[st->n_prefixes++] = p_len;
    return 0;
}

/* Past the whitespace, the '>' or "/>" that ends a start tag: 1 when there, *empty set
 * for "/>"; 0 when something else is; -1 for a '/' without '>' (declined). */
static int tag_end(St *st, int *empty) {
    unsigned char c = st->s[st->pos];
    if (c == '>') {
        st->pos++;
        return 1;
    }
    if (c != '/')
        return 0;
    if (st->pos + 1 >= st->n || st->s[st->pos + 1] != '>')
        return -1;
    st->pos += 2;
    *empty = 1;
    return 1;
}

/* The attributes of a start tag, to its end ('>' or "/>"): 0 when read, 1 to decline,
 * -1 on a Python error. Sets *empty ("/>") and, for a ctrl (is_ctrl), *ctrl_tab (an id
 * of "tab", any case); lists them in *tag (for a sink) unless it is NULL. */
static int start_attrs(St *st, int root, int is_ctrl, int *ctrl_tab, int *empty,
                       Seen *rec, Tag *tag) {
    Py_ssize_t attr_at[MAX_ATTRS], attr_len[MAX_ATTRS];
    int n_attrs = 0;
    for (;;) {
        int had_ws = skip_ws(st);
        if (st->pos >= st->n)
            return 1;
        int end = tag_end(st, empty);
        if (end)
            return end < 0;
        Py_ssize_t a_at = st->pos, a_len, a_colon, v_at, v_len;
        int amp;
        if (!had_ws || !read_qname(st, &a_len, &a_colon) || n_attrs >= MAX_ATTRS ||
            duplicate(st, attr_at, attr_len, n_attrs, a_at, a_len))
            return 1;
        attr_at[n_attrs] = a_at;
        attr_len[n_attrs++] = a_len;
        skip_ws(st); /* pos < n after it: the last '>' stops it */
        if (st->s[st->pos] != '=')
            return 1;
        st->pos++;
        skip_ws(st);
        if (value_span(st, &v_at, &v_len, &amp) || (amp && !references_ok(st, v_at, v_len)))
            return 1;
        const unsigned char *a = st->s + a_at;
        if (a[0] == 'x' && a_len >= 5 && memcmp(a, "xmlns", 5) == 0 &&
            (a_len == 5 || a_colon == 5)) {
            if (!root || declaration(st, a_at, a_len, a_colon, v_at, v_len))
                return 1; /* declarations below the root: left to expat */
            continue;
        }
        if (a_colon >= 0 && !(a_colon == 3 && memcmp(a, "xml", 3) == 0))
            return 1;
        if (tag != NULL) {
            Py_ssize_t local = a_colon >= 0 ? a_colon + 1 : 0;
            tag->name[tag->n] = (Span){a_at + local, a_len - local};
            tag->value[tag->n++] = (Span){v_at, v_len};
        }
        if (is_ctrl && a_len == 2 && a[0] == 'i' && a[1] == 'd') {
            *ctrl_tab = value_is_tab(st, v_at, v_len);
            if (rec != NULL)
                rec->id_value = rec->n_values;
        }
        if (rec != NULL && rec->n_values >= 0) {
            if (rec->n_values < SEEN_VALUES) {
                rec->value_at[rec->n_values] = v_at;
                rec->value_len[rec->n_values++] = v_len;
            } else {
                rec->n_values = -1;
            }
        }
    }
}

/* The start tag read last under this qualified name s[at:at+len] (a slot per hash of
 * its length and last two bytes). */
static Seen *seen_slot(St *st, Py_ssize_t at, Py_ssize_t len) {
    const unsigned char *name = st->s + at;
    unsigned key = (unsigned)(len * 7 + name[len - 1] + (len > 1 ? name[len - 2] * 3 : 0));
    return &st->seen[key % SEEN_SLOTS];
}

/* Whether the start tag at at (past its '<', its name of len bytes just read) repeats
 * seen's byte for byte, to the end of seen's. */
static int repeats(St *st, const Seen *seen, Py_ssize_t at, Py_ssize_t len) {
    return seen->len > 0 && seen->name_len == len && at + seen->len <= st->n &&
           memcmp(st->s + at, st->s + seen->at, (size_t)seen->len) == 0;
}

/* Whether the start tag at at (past its '<', its name of len bytes just read) has
 * seen's shape: the same bytes but for the values of its attributes, each of which
 * reads as a value (no '<', references expat knows). The walk would read each stretch
 * between two values as it read seen's, so the tag is accepted as seen was, its ctrl
 * id read again; seen then becomes this tag. Sets pos past it and *ctrl_tab. */
static int same_shape(St *st, Seen *seen, Py_ssize_t at, Py_ssize_t len, int *ctrl_tab) {
    if (seen->len == 0 || seen->name_len != len || seen->n_values <= 0)
        return 0;
    Py_ssize_t v_at[SEEN_VALUES], v_len[SEEN_VALUES];
    Py_ssize_t old = seen->at, p = at; /* the stretch of seen's to compare, and here */
    for (int k = 0; k <= seen->n_values; k++) {
        Py_ssize_t stretch = (k < seen->n_values ? seen->value_at[k] : seen->at + seen->len) - old;
        if (p + stretch > st->n || memcmp(st->s + p, st->s + old, (size_t)stretch) != 0)
            return 0;
        if (k == seen->n_values) {
            p += stretch;
            break;
        }
        int amp;
        st->pos = p + stretch - 1; /* the opening quote, the same as seen's */
        if (value_span(st, &v_at[k], &v_len[k], &amp) ||
            (amp && !references_ok(st, v_at[k], v_len[k])))
            return 0;
        p = st->pos;
        old = seen->value_at[k] + seen->value_len[k] + 1;
    }
    *ctrl_tab = seen->ctrl_tab;
    if (seen->kind == K_CTRL && seen->id_value >= 0)
        *ctrl_tab = value_is_tab(st, v_at[seen->id_value], v_len[seen->id_value]);
    seen->at = at;
    seen->len = p - at;
    seen->ctrl_tab = (unsigned char)*ctrl_tab;
    memcpy(seen->value_at, v_at, (size_t)seen->n_values * sizeof v_at[0]);
    memcpy(seen->value_len, v_len, (size_t)seen->n_values * sizeof v_len[0]);
    st->pos = p;
    return 1;
}

/* A start tag read: the element opened (and closed again when empty). */
static int opened(St *st, enum kind k, int ctrl_tab, int empty, Py_ssize_t at, Py_ssize_t len) {
    if (on_start(st, k, ctrl_tab) < 0)
        return -1;
    st->name_at[st->depth] = at;
    st->name_len[st->depth] = len;
    return empty ? on_end(st) : 0;
}

/* A start tag at pos (just past '<'). Below the root, a tag whose bytes repeat the last
 * one read under its name is not parsed again: its attributes were read and accepted
 * then, and the prefixes they were checked against cannot change below the root. */
static int start_tag(St *st) {
    Py_ssize_t at = st->pos, len, colon;
    if (!read_qname(st, &len, &colon))
        DECLINE;
    if (st->depth + 1 > st->max_depth)
        DECLINE;
    Seen *seen = st->depth > 0 && st->sink == NULL ? seen_slot(st, at, len) : NULL;
    if (seen != NULL && repeats(st, seen, at, len)) {
        st->pos = at + seen->len;
        return opened(st, (enum kind)seen->kind, seen->ctrl_tab, seen->empty, at, len);
    }
    int ctrl_tab = 0, empty = 0;
    if (seen != NULL && same_shape(st, seen, at, len, &ctrl_tab))
        return opened(st, (enum kind)seen->kind, ctrl_tab, seen->empty, at, len);
    st->pos = at + len;
    const unsigned char *local = st->s + at + (colon >= 0 ? colon + 1 : 0);
    Py_ssize_t local_len = colon >= 0 ? len - colon - 1 : len;
    enum kind k = kind_of(local, local_len);
    Seen rec; /* what seen becomes */
    rec.n_values = 0;
    rec.id_value = -1;
    Tag tag;
    tag.local = (Span){at + (colon >= 0 ? colon + 1 : 0), local_len};
    tag.n = 0;
    int r = start_attrs(st, st->depth == 0, k == K_CTRL, &ctrl_tab, &empty,
                        seen != NULL ? &rec : NULL, st->sink != NULL ? &tag : NULL);
    if (r == 0 && colon >= 0 && !declared_prefix(st, at, colon))
        r = 1; /* unbound (or declared below the root): expat's to judge */
    if (r == 0 && st->sink != NULL)
        r = st->sink(st->ctx, st->s, &tag);
    if (r == 1)
        DECLINE;
    if (r < 0)
        return -1;
    if (seen != NULL) {
        rec.at = at;
        rec.len = st->pos - at;
        rec.name_len = len;
        rec.kind = (unsigned char)k;
        rec.ctrl_tab = (unsigned char)ctrl_tab;
        rec.empty = (unsigned char)empty;
        *seen = rec;
    }
    return opened(st, k, ctrl_tab, empty, at, len);
}

static int end_tag(St *st) {
    if (st->depth == 0)
        DECLINE;
    /* the open element's name (a qualified name read before), and no name byte after
     * it: what reading a name here and comparing the two would find */
    Py_ssize_t at = st->pos, len = st->name_len[st->depth];
    if (at + len >= st->n || memcmp(st->s + at, st->s + st->name_at[st->depth], (size_t)len) ||
        (cls[st->s[at + len]] & C_NAME) || st->s[at + len] == ':')
        DECLINE;
    st->pos = at + len;
    skip_ws(st);
    if (st->pos >= st->n || st->s[st->pos] != '>')
        DECLINE;
    st->pos++;
    return on_end(st);
}

/* A comment at pos (past "<!--"): no "--" inside. */
static int comment(St *st) {
    for (Py_ssize_t p = st->pos; p + 1 < st->n; p++) {
        if (st->s[p] == '-' && st->s[p + 1] == '-') {
            if (p + 2 < st->n && st->s[p + 2] == '>') {
                st->pos = p + 3;
                return 0;
            }
            DECLINE;
        }
    }
    DECLINE;
}

/* A processing instruction at pos (past "<?"): a name other than xml, then "?>". */
static int pi(St *st) {
    Py_ssize_t at = st->pos, len, colon;
    if (!read_qname(st, &len, &colon) || colon >= 0)
        DECLINE;
    if (len == 3 && (st->s[at] | 0x20) == 'x' && (st->s[at + 1] | 0x20) == 'm' &&
        (st->s[at + 2] | 0x20) == 'l')
        DECLINE;
    if (starts(st, "?>")) {
        st->pos += 2;
        return 0;
    }
    if (!skip_ws(st))
        DECLINE;
    for (Py_ssize_t p = st->pos; p + 1 < st->n; p++) {
        if (st->s[p] == '?' && st->s[p + 1] == '>') {
            st->pos = p + 2;
            return 0;
        }
    }
    DECLINE;
}

/* pseudo-attribute name="value" of the XML declaration; the value's span. */
static int pseudo(St *st, const char *name, Py_ssize_t *v_at, Py_ssize_t *v_len) {
    if (!starts(st, name))
        return 0;
    st->pos += (Py_ssize_t)strlen(name);
    skip_ws(st);
    if (st->pos >= st->n || st->s[st->pos] != '=')
        return -1;
    st->pos++;
    skip_ws(st);
    if (st->pos >= st->n || (st->s[st->pos] != '"' && st->s[st->pos] != '\''))
        return -1;
    unsigned char quote = st->s[st->pos++];
    *v_at = st->pos;
    while (st->pos < st->n && st->s[st->pos] != quote)
        st->pos++;
    if (st->pos >= st->n)
        return -1;
    *v_len = st->pos - *v_at;
    st->pos++;
    return 1;
}

static int span_is(St *st, Py_ssize_t at, Py_ssize_t len, const char *lit, int fold) {
    if ((size_t)len != strlen(lit))
        return 0;
    for (Py_ssize_t i = 0; i < len; i++) {
        unsigned char c = st->s[at + i];
        if (fold && c >= 'A' && c <= 'Z')
            c = (unsigned char)(c | 0x20);
        if (c != (unsigned char)lit[i])
            return 0;
    }
    return 1;
}

/* <?xml version="1.0" [encoding="UTF-8"] [standalone="yes|no"]?> at pos (past "<?xml"). */
static int xml_decl(St *st) {
    Py_ssize_t at, len;
    if (!skip_ws(st) || pseudo(st, "version", &at, &len) != 1 || !span_is(st, at, len, "1.0", 0))
        DECLINE;
    int ws = skip_ws(st);
    if (ws && starts(st, "encoding")) {
        if (pseudo(st, "encoding", &at, &len) != 1 || !span_is(st, at, len, "utf-8", 1))
            DECLINE;
        ws = skip_ws(st);
    }
    if (ws && starts(st, "standalone")) {
        if (pseudo(st, "standalone", &at, &len) != 1 ||
            !(span_is(st, at, len, "yes", 0) || span_is(st, at, len, "no", 0)))
            DECLINE;
        skip_ws(st);
    }
    if (!starts(st, "?>"))
        DECLINE;
    st->pos += 2;
    return 0;
}

/* The bytes of w equal to the byte whose copies fill pattern: a high bit set for each
 * (and none when there is none, which is all that is asked of it). */
static uint64_t bytes_equal(uint64_t w, uint64_t pattern) {
    uint64_t x = w ^ pattern;
    return (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull;
}

/* The first '<', '&' or ']' in s[p:n], or n. Eight bytes at a time: text runs are long
 * and hold none of them mostly. */
static Py_ssize_t text_stop(const unsigned char *s, Py_ssize_t p, Py_ssize_t n) {
    while (p + 8 <= n) {
        uint64_t w;
        memcpy(&w, s + p, 8);
        if (bytes_equal(w, 0x3c3c3c3c3c3c3c3cull) | bytes_equal(w, 0x2626262626262626ull) |
            bytes_equal(w, 0x5d5d5d5d5d5d5d5dull))
            break;
        p += 8;
    }
    while (p < n && !(cls[s[p]] & C_TEXT))
        p++;
    return p;
}

/* Character data from pos to the next '<': "]]>" refused, references decoded. */
static int char_data(St *st) {
    Py_ssize_t p = st->pos, run = p;
    int capturing = 0;
    for (int i = 0; i < st->n_paras; i++)
        capturing |= st->paras[i].capture && !st->paras[i].mute;
    for (;;) {
        p = text_stop(st->s, p, st->n);
        if (p >= st->n || st->s[p] == '<')
            break;
        if (st->s[p] == ']') {
            if (p + 2 < st->n && st->s[p + 1] == ']' && st->s[p + 2] == '>')
                DECLINE;
            p++;
            continue;
        }
        char piece[4]; /* a reference */
        int piece_len;
        Py_ssize_t used;
        if (!reference(st->s, p + 1, st->n, piece, &piece_len, &used))
            DECLINE;
        if (capturing && (add_text(st, (const char *)st->s + run, p - run) < 0 ||
                          add_text(st, piece, piece_len) < 0))
            return -1;
        p += 1 + used;
        run = p;
    }
    if (st->depth == 0) { /* outside the root: whitespace only */
        for (Py_ssize_t q = st->pos; q < p; q++) {
            if (!is_ws(st->s[q]))
                DECLINE;
        }
    } else if (capturing && add_text(st, (const char *)st->s + run, p - run) < 0) {
        return -1;
    }
    st->pos = p;
    return 0;
}

static int cdata(St *st) {
    for (Py_ssize_t p = st->pos; p + 2 < st->n; p++) {
        if (st->s[p] == ']' && st->s[p + 1] == ']' && st->s[p + 2] == '>') {
            if (add_text(st, (const char *)st->s + st->pos, p - st->pos) < 0)
                return -1;
            st->pos = p + 3;
            return 0;
        }
    }
    DECLINE;
}

/* A comment or a CDATA section at pos (its "!"); any other <!...> is declined. */
static int markup(St *st) {
    if (starts(st, "!--")) {
        st->pos += 3;
        return comment(st);
    }
    if (!starts(st, "![CDATA[") || st->depth == 0)
        DECLINE;
    st->pos += 8;
    return cdata(st);
}

static int walk(St *st) {
    if (starts(st, "\xef\xbb\xbf"))
        st->pos += 3;
    if (starts(st, "<?xml") && st->pos + 5 < st->n && is_ws(st->s[st->pos + 5])) {
        st->pos += 5;
        if (xml_decl(st) < 0)
            return -1;
    }
    int seen_root = 0;
    while (st->pos < st->n) {
        if (st->s[st->pos] != '<') {
            if (char_data(st) < 0)
                return -1;
            continue;
        }
        st->pos++; /* < n: the last byte is '>' */
        unsigned char c = st->s[st->pos];
        int r;
        if (c == '/')
            st->pos++, r = end_tag(st);
        else if (c == '!')
            r = markup(st);
        else if (c == '?')
            st->pos++, r = pi(st);
        else {
            if (st->depth == 0 && seen_root)
                DECLINE; /* a second root */
            seen_root = 1;
            r = start_tag(st);
        }
        if (r < 0)
            return -1;
    }
    if (!seen_root || st->depth != 0)
        DECLINE;
    return 0;
}

/* Walk st->s (set up by the caller): 0 when read, 1 declined, -1 on a Python error. */
static int run(St *st, int max_depth, Py_ssize_t max_paragraphs) {
    st->max_depth = max_depth < 1 ? 1 : max_depth;
    st->max_paragraphs = max_paragraphs;
    if (!plain_utf8(st->s, st->n))
        return 1;
    /* what the walk accepts ends with '>' and whitespace: the walk reads up to it */
    while (st->n > 0 && is_ws(st->s[st->n - 1]))
        st->n--;
    if (st->n == 0 || st->s[st->n - 1] != '>')
        return 1;
    int r = -1;
    /* not zeroed: each entry is written before it is read (a level when it opens) */
    st->kinds = PyMem_Malloc((size_t)st->max_depth + 2);
    st->name_at = PyMem_Malloc(((size_t)st->max_depth + 2) * sizeof(Py_ssize_t));
    st->name_len = PyMem_Malloc(((size_t)st->max_depth + 2) * sizeof(Py_ssize_t));
    st->paras = PyMem_Malloc(((size_t)st->max_depth + 2) * sizeof(Para));
    st->slots = PyList_New(0);
    if (st->kinds == NULL || st->name_at == NULL || st->name_len == NULL || st->paras == NULL) {
        PyErr_NoMemory();
    } else if (st->slots != NULL) {
        r = walk(st) == 0 ? 0 : st->failed == 1 && !PyErr_Occurred() ? 1 : -1;
    }
    for (int i = 0; i < st->n_paras; i++)
        PyMem_Free(st->paras[i].parts.data);
    PyMem_Free(st->kinds);
    PyMem_Free(st->name_at);
    PyMem_Free(st->name_len);
    PyMem_Free(st->paras);
    return r;
}

/* A walk's state zeroed, but for the table of start tags seen, which only needs its
 * slots marked empty (zeroing it whole cost more than a small section's walk). */
static void clear(St *st) {
    memset(st, 0, offsetof(St, seen));
    for (int i = 0; i < SEEN_SLOTS; i++)
        st->seen[i].len = 0;
}

int hwpscan_hwpx_walk(const unsigned char *s, Py_ssize_t n, int max_depth,
                      Py_ssize_t max_paragraphs, TagSink sink, void *ctx, PyObject **slots) {
    St st;
    clear(&st);
    st.s = s;
    st.n = n;
    st.sink = sink;
    st.ctx = ctx;
    int r = run(&st, max_depth, max_paragraphs);
    if (r == 0)
        *slots = st.slots;
    else
        Py_XDECREF(st.slots);
    return r;
}

void hwpscan_hwpx_init(void) { init_classes(); }
