package extract

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ledongthuc/pdf"
)

// extractPDF reads the text of every page with github.com/ledongthuc/pdf
// (pure Go, a maintained descendant of rsc.io/pdf) and writes each page
// that has text as "--- Page N ---\n<text>\n\n", the layout the knowledge
// reference's get_document shows. The page text is pageText's (the
// library's GetPlainText ignores text positioning, so two lines of one
// text object came out glued: "Quarterly ReportThe zebra"). Measured on
// the LibreOffice fixtures of testdata/: every word and non-ASCII letter
// comes back in reading order, one text line a line, in under a
// millisecond per page. The library panics on some malformed input;
// pageText and As recover that into ErrMalformed. Encrypted PDFs need a
// password and are refused as malformed.
func extractPDF(ctx context.Context, _ string, data []byte, opt Options) (*Document, error) {
	if !bytes.HasPrefix(bytes.TrimLeft(data[:min(len(data), 1024)], "\x00\t\n\f\r "), []byte("%PDF-")) {
		return nil, malformed(PDF, "no %PDF- header")
	}
	r, err := pdf.NewReader(newInterruptible(ctx, bytes.NewReader(data), len(data)), int64(len(data)))
	if err != nil {
		return nil, malformed(PDF, err.Error())
	}
	doc := &Document{Meta: map[string]string{}}
	info := r.Trailer().Key("Info")
	for key, meta := range map[string]string{"Title": "", "Author": "author", "Subject": "subject", "Creator": "creator"} {
		v := strings.TrimSpace(info.Key(key).Text())
		if v == "" {
			continue
		}
		if meta == "" {
			doc.Title = v
		} else {
			doc.Meta[meta] = v
		}
	}
	n := r.NumPage()
	doc.Meta["pages"] = strconv.Itoa(n)
	out := limitedBuffer{limit: opt.MaxBytes}
	for i := 1; i <= n; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		page := r.Page(i)
		if err := contentWithin(page.V.Key("Contents"), opt.MaxBytes); err != nil {
			return nil, fmt.Errorf("page %d: %w", i, err)
		}
		// Fonts are resolved per page: resource names like /F1 mean
		// different fonts on different pages.
		text, err := pageText(page)
		if err != nil {
			return nil, malformed(PDF, fmt.Sprintf("page %d: %v", i, err))
		}
		text = cleanLines(text)
		if text == "" {
			continue
		}
		if err := out.add(fmt.Sprintf("--- Page %d ---\n%s\n\n", i, text)); err != nil {
			return nil, err
		}
	}
	doc.Text = out.String()
	return doc, nil
}

// contentWithin inflates a page's content streams (one stream, or an
// array of them), counting their bytes without keeping them, and refuses
// the page once they hold more than limit. The PDF library's interpreter
// reads a content stream with no bound: a flate bomb of one 256 MiB
// string took 1.9 GB of RSS through upload_file and ran past the 30 s
// deadline. Counting first costs a second inflation of honest pages'
// content (the interpreter's own is the first), and stops a bomb after
// limit bytes: 32 MiB by default, more than any page's operators hold.
// A stream the library cannot read is left to pageText, which reports it.
func contentWithin(v pdf.Value, limit int64) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if r == errInterrupted || r == errReadBudget {
				panic(r) // the extraction's own stop, handled by As
			}
			err = nil
		}
	}()
	var n int64
	count := func(s pdf.Value) error {
		if s.Kind() != pdf.Stream {
			return nil
		}
		rc := s.Reader()
		defer rc.Close()
		m, _ := io.Copy(io.Discard, io.LimitReader(rc, limit-n+1))
		if n += m; n > limit {
			return tooLarge("the page's content", n, limit)
		}
		return nil
	}
	if v.Kind() == pdf.Array {
		for i := range v.Len() {
			if err := count(v.Index(i)); err != nil {
				return err
			}
		}
		return nil
	}
	return count(v)
}

// cleanLines trims every line and drops blank ones: PDF text objects
// come with stray spaces and empty objects between them.
func cleanLines(s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(t)
	}
	return b.String()
}

// Thresholds of pageText, in units of the font size: a baseline moved by
// more than lineGap is a new line; a horizontal gap wider than wordGap
// between where the last glyph ended and where the next text starts (a
// Td/Tm jump or a TJ adjustment) is a space, a jump back by more than
// backGap is one too. Kerning stays well under wordGap (TJ adjustments of
// tens of thousandths of an em); word spaces set by position are a
// quarter of an em or more.
const (
	lineGap = 0.5
	wordGap = 0.2
	backGap = 1.0
)

// pdfFont is what pageText needs of a font: its decoder, whether its
// codes are two bytes (Type0), and glyph widths in thousandths of an em.
type pdfFont struct {
	enc     pdf.TextEncoding
	twoByte bool
	first   int
	widths  []float64       // simple fonts: Widths from FirstChar
	cid     map[int]float64 // Type0: the descendant's W array
	dw      float64         // Type0: DW, else 0
}

func newPDFFont(f pdf.Font) *pdfFont {
	if f.V.IsNull() {
		// A font the page's resources do not name: its bytes as they
		// are, as GetPlainText did.
		return &pdfFont{}
	}
	pf := &pdfFont{enc: f.Encoder()}
	if f.V.Key("Subtype").Name() == "Type0" {
		pf.twoByte = true
		d := f.V.Key("DescendantFonts").Index(0)
		pf.dw = 1000
		if v := d.Key("DW"); v.Kind() == pdf.Integer || v.Kind() == pdf.Real {
			pf.dw = v.Float64()
		}
		pf.cid = map[int]float64{}
		w := d.Key("W")
		// W is a list of "c [w1 w2 ...]" and "cfirst clast w" groups.
		for i := 0; i+1 < w.Len() && len(pf.cid) < 1<<16; {
			c := int(w.Index(i).Float64())
			if w.Index(i+1).Kind() == pdf.Array {
				a := w.Index(i + 1)
				for j := 0; j < a.Len() && len(pf.cid) < 1<<16; j++ {
					pf.cid[c+j] = a.Index(j).Float64()
				}
				i += 2
				continue
			}
			if i+2 >= w.Len() {
				break
			}
			last, width := int(w.Index(i+1).Float64()), w.Index(i+2).Float64()
			for k := c; k <= last && len(pf.cid) < 1<<16; k++ {
				pf.cid[k] = width
			}
			i += 3
		}
		return pf
	}
	pf.first = f.FirstChar()
	pf.widths = f.Widths()
	return pf
}

// width is the advance of code in thousandths of an em; 500 (half an em,
// about an average Latin glyph) when the font does not say, as for the
// standard 14 fonts without a Widths array.
func (f *pdfFont) width(code int) float64 {
	var w float64
	if f.twoByte {
		w = f.dw
		if v, ok := f.cid[code]; ok {
			w = v
		}
	} else if i := code - f.first; i >= 0 && i < len(f.widths) {
		w = f.widths[i]
	}
	if w <= 0 {
		return 500
	}
	return w
}

// textState is the part of the graphics state pageText follows (q/Q save
// and restore it): font, size, character and word spacing, horizontal
// scaling and leading.
type textState struct {
	font                   *pdfFont
	size, tc, tw, th, lead float64
}

// pageText is the text of page in content-stream order, with a line break
// where the baseline moves (Td, TD, T*, ', ", Tm, a new BT) and a space
// where the text jumps forward by more than wordGap of the font size
// (positioned words, large TJ adjustments). It follows the text and line
// matrices of the PDF text model (ISO 32000-1 §9.4) in text space without
// the CTM, which scales a block uniformly. Parse failures of the library
// (it panics) are returned as errors.
func pageText(page pdf.Page) (text string, err error) {
	defer func() {
		if r := recover(); r != nil {
			text, err = "", fmt.Errorf("%v", r)
		}
	}()
	if page.V.IsNull() || page.V.Key("Contents").Kind() == pdf.Null {
		return "", nil
	}
	fonts := map[string]*pdfFont{}
	var (
		b        strings.Builder
		st       = textState{th: 1}
		stack    []textState
		tm, tlm  [6]float64 // a b c d e f
		endX     float64    // where the last shown glyph ended, in text line space
		endY     float64
		shown    bool // something was shown since BT
		pendingS bool // a wide TJ adjustment asks for a space before the next text
	)
	identity := [6]float64{1, 0, 0, 1, 0, 0}
	tm, tlm = identity, identity
	// translate is [1 0 0 1 tx ty] × m.
	translate := func(m [6]float64, tx, ty float64) [6]float64 {
		m[4] += tx*m[0] + ty*m[2]
		m[5] += tx*m[1] + ty*m[3]
		return m
	}
	// scale is the size of one text-space unit along the line and across
	// it, so gaps compare with the font size as rendered.
	scale := func(m [6]float64) (float64, float64) {
		return math.Hypot(m[0], m[1]), math.Hypot(m[2], m[3])
	}
	lastIsSpace := func() bool {
		s := b.String()
		return s == "" || strings.HasSuffix(s, " ") || strings.HasSuffix(s, "\n")
	}
	// place decides, before text is shown at tm, whether a line break or
	// a space separates it from what was shown before.
	place := func() {
		if !shown {
			return
		}
		sx, sy := scale(tm)
		size := math.Abs(st.size)
		if size == 0 {
			size = 1
		}
		// The displacement from the last glyph's end, projected on the
		// baseline direction and its normal, in rendered units.
		dx, dy := tm[4]-endX, tm[5]-endY
		var along, across float64
		if sx > 0 {
			along = (dx*tm[0] + dy*tm[1]) / sx
		}
		if sy > 0 {
			across = (dx*tm[2] + dy*tm[3]) / sy
		}
		switch {
		case math.Abs(across) > lineGap*size*sy:
			b.WriteByte('\n')
			pendingS = false
		case along > wordGap*size*sx, along < -backGap*size*sx, pendingS:
			if !lastIsSpace() {
				b.WriteByte(' ')
			}
			pendingS = false
		}
	}
	show := func(raw string) {
		place()
		s := raw
		if st.font != nil && st.font.enc != nil {
			s = st.font.enc.Decode(raw)
		}
		for _, r := range s { // invalid UTF-8 becomes U+FFFD
			b.WriteRune(r)
		}
		// Advance tm by the string's width (§9.4.4).
		step := 1
		if st.font != nil && st.font.twoByte {
			step = 2
		}
		var adv float64
		for i := 0; i+step <= len(raw); i += step {
			code := int(raw[i])
			if step == 2 {
				code = code<<8 | int(raw[i+1])
			}
			w := 500.0
			if st.font != nil {
				w = st.font.width(code)
			}
			a := w/1000*st.size + st.tc
			if step == 1 && code == ' ' {
				a += st.tw
			}
			adv += a * st.th
		}
		tm = translate(tm, adv, 0)
		endX, endY = tm[4], tm[5]
		shown = true
	}
	newLine := func(tx, ty float64) {
		tlm = translate(tlm, tx, ty)
		tm = tlm
	}
	num := func(v pdf.Value) float64 { return v.Float64() }
	pdf.Interpret(page.V.Key("Contents"), func(stk *pdf.Stack, op string) {
		args := make([]pdf.Value, stk.Len())
		for i := len(args) - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		switch op {
		case "q":
			if len(stack) < 1<<10 {
				stack = append(stack, st)
			}
		case "Q":
			if n := len(stack); n > 0 {
				st, stack = stack[n-1], stack[:n-1]
			}
		case "BT":
			tm, tlm = identity, identity
			// Every text object starts a line, as with GetPlainText.
			b.WriteByte('\n')
			shown, pendingS = false, false
		case "Tf":
			if len(args) == 2 {
				name := args[0].Name()
				f, ok := fonts[name]
				if !ok {
					f = newPDFFont(page.Font(name))
					fonts[name] = f
				}
				st.font, st.size = f, num(args[1])
			}
		case "Tc":
			if len(args) == 1 {
				st.tc = num(args[0])
			}
		case "Tw":
			if len(args) == 1 {
				st.tw = num(args[0])
			}
		case "Tz":
			if len(args) == 1 {
				st.th = num(args[0]) / 100
			}
		case "TL":
			if len(args) == 1 {
				st.lead = num(args[0])
			}
		case "Td":
			if len(args) == 2 {
				newLine(num(args[0]), num(args[1]))
			}
		case "TD":
			if len(args) == 2 {
				st.lead = -num(args[1])
				newLine(num(args[0]), num(args[1]))
			}
		case "Tm":
			if len(args) == 6 {
				for i := range tlm {
					tlm[i] = num(args[i])
				}
				tm = tlm
			}
		case "T*":
			newLine(0, -st.lead)
		case "'", "\"":
			if op == "\"" && len(args) == 3 {
				st.tw, st.tc = num(args[0]), num(args[1])
				args = args[2:]
			}
			newLine(0, -st.lead)
			if len(args) == 1 {
				show(args[0].RawString())
			}
		case "Tj":
			if len(args) == 1 {
				show(args[0].RawString())
			}
		case "TJ":
			if len(args) != 1 {
				return
			}
			a := args[0]
			for i := 0; i < a.Len(); i++ {
				x := a.Index(i)
				switch x.Kind() {
				case pdf.String:
					show(x.RawString())
				case pdf.Integer, pdf.Real:
					// A number moves the next glyph left by n/1000 em;
					// a large negative one is a word space.
					n := x.Float64()
					tm = translate(tm, -n/1000*st.size*st.th, 0)
					if shown && -n/1000 > wordGap {
						pendingS = true
					}
					endX, endY = tm[4], tm[5]
				}
			}
		}
	})
	return b.String(), nil
}
