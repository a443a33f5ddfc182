package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
)

// The OOXML namespaces the extractors read.
const (
	nsWord     = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	nsDrawing  = "http://schemas.openxmlformats.org/drawingml/2006/main"
	nsPresent  = "http://schemas.openxmlformats.org/presentationml/2006/main"
	nsRel      = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
	nsDC       = "http://purl.org/dc/elements/1.1/"
	relSlide   = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide"
	maxMembers = 10000 // an Office file has tens of parts; more is an attack
)

// ooxml is an opened Office archive whose parts are read with a size cap.
type ooxml struct {
	format Format
	files  map[string]*zip.File
	limit  int64
}

func openOOXML(format Format, data []byte, limit int64) (*ooxml, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, malformed(format, "not a zip archive: "+err.Error())
	}
	if len(zr.File) > maxMembers {
		return nil, malformed(format, fmt.Sprintf("%d archive members", len(zr.File)))
	}
	o := &ooxml{format: format, files: make(map[string]*zip.File, len(zr.File)), limit: limit}
	for _, f := range zr.File {
		o.files[f.Name] = f
	}
	return o, nil
}

// part returns the decompressed part name; ok is false when it is absent.
// The read stops at the limit whatever the archive claims, so a part that
// inflates without end (a zip bomb) costs at most limit bytes.
func (o *ooxml) part(name string) (data []byte, ok bool, err error) {
	f := o.files[name]
	if f == nil {
		return nil, false, nil
	}
	rc, err := f.Open()
	if err != nil {
		return nil, true, malformed(o.format, name+": "+err.Error())
	}
	defer rc.Close()
	data, err = io.ReadAll(io.LimitReader(rc, o.limit+1))
	if err != nil {
		return nil, true, malformed(o.format, name+": "+err.Error())
	}
	if int64(len(data)) > o.limit {
		return nil, true, tooLarge(name, int64(len(data)), o.limit)
	}
	return data, true, nil
}

// coreTitle reads dc:title and dc:creator of docProps/core.xml into doc.
func (o *ooxml) coreProps(doc *Document) {
	data, ok, err := o.part("docProps/core.xml")
	if !ok || err != nil {
		return // properties are optional; a broken one costs only them
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	var field string
	for {
		tok, err := d.Token()
		if err != nil {
			return
		}
		switch t := tok.(type) {
		case xml.StartElement:
			field = ""
			if t.Name.Space == nsDC && (t.Name.Local == "title" || t.Name.Local == "creator" || t.Name.Local == "subject") {
				field = t.Name.Local
			}
		case xml.CharData:
			v := strings.TrimSpace(string(t))
			switch {
			case v == "" || field == "":
			case field == "title":
				doc.Title = v
			case field == "creator":
				doc.Meta["author"] = v
			default:
				doc.Meta[field] = v
			}
		case xml.EndElement:
			field = ""
		}
	}
}

// extractDOCX writes each paragraph of word/document.xml on its own line
// (tabs and breaks kept), headings (styles Heading1-6 or Title) with a
// Markdown "#" marker so navigate_context outlines them, and each table
// row as its cells joined by " | ". Text in text boxes and footnotes of
// the main part is included in document order.
func extractDOCX(ctx context.Context, _ string, data []byte, opt Options) (*Document, error) {
	o, err := openOOXML(DOCX, data, opt.MaxBytes)
	if err != nil {
		return nil, err
	}
	body, ok, err := o.part("word/document.xml")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, malformed(DOCX, "no word/document.xml")
	}
	doc := &Document{Meta: map[string]string{}}
	o.coreProps(doc)
	out := limitedBuffer{limit: opt.MaxBytes}
	d := xml.NewDecoder(bytes.NewReader(body))
	var (
		para     strings.Builder
		heading  int
		inText   bool
		cells    []string
		inCell   int
		elements int
	)
	flush := func() error {
		t := strings.TrimSpace(para.String())
		para.Reset()
		if inCell > 0 {
			if len(cells) > 0 && t != "" {
				if cells[len(cells)-1] != "" {
					cells[len(cells)-1] += " "
				}
				cells[len(cells)-1] += t
			}
			return nil
		}
		if t == "" {
			return nil
		}
		if heading > 0 {
			t = strings.Repeat("#", heading) + " " + t
		}
		return out.add(t + "\n\n")
	}
	for {
		if elements++; elements%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, malformed(DOCX, "word/document.xml: "+err.Error())
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space != nsWord {
				continue
			}
			switch t.Name.Local {
			case "p":
				heading = 0
			case "pStyle":
				heading = headingStyle(attr(t, nsWord, "val"))
			case "t":
				inText = true
			case "tab":
				para.WriteByte('\t')
			case "br", "cr":
				para.WriteByte('\n')
			case "tc":
				inCell++
				cells = append(cells, "")
			case "tr":
				cells = cells[:0]
			}
		case xml.CharData:
			if inText {
				para.Write(t)
			}
		case xml.EndElement:
			if t.Name.Space != nsWord {
				continue
			}
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				if err := flush(); err != nil {
					return nil, err
				}
			case "tc":
				inCell = max(0, inCell-1)
			case "tr":
				if inCell == 0 && len(cells) > 0 {
					if err := out.add(strings.Join(cells, " | ") + "\n"); err != nil {
						return nil, err
					}
				}
			case "tbl":
				if inCell == 0 {
					if err := out.add("\n"); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	doc.Text = out.String()
	return doc, nil
}

// headingStyle maps a paragraph style id to a heading level (0: none).
func headingStyle(style string) int {
	s := strings.ToLower(strings.ReplaceAll(style, " ", ""))
	if s == "title" {
		return 1
	}
	if n, ok := strings.CutPrefix(s, "heading"); ok {
		if lvl, err := strconv.Atoi(n); err == nil && lvl >= 1 && lvl <= 6 {
			return lvl
		}
	}
	return 0
}

// attr returns the attribute space:local of t ("" when absent). The
// namespace must match: p:sldId carries both id and r:id.
func attr(t xml.StartElement, space, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local && a.Name.Space == space {
			return a.Value
		}
	}
	return ""
}

// extractPPTX writes the slides in presentation order (p:sldIdLst, through
// ppt/_rels/presentation.xml.rels) as "--- Slide N ---" followed by each
// non-blank paragraph (a:p) of the slide on its own line.
func extractPPTX(ctx context.Context, _ string, data []byte, opt Options) (*Document, error) {
	o, err := openOOXML(PPTX, data, opt.MaxBytes)
	if err != nil {
		return nil, err
	}
	slides, err := o.slideOrder()
	if err != nil {
		return nil, err
	}
	doc := &Document{Meta: map[string]string{"slides": strconv.Itoa(len(slides))}}
	o.coreProps(doc)
	out := limitedBuffer{limit: opt.MaxBytes}
	for i, name := range slides {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		body, ok, err := o.part(name)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, malformed(PPTX, "missing slide part "+name)
		}
		paras, err := drawingParagraphs(body)
		if err != nil {
			return nil, malformed(PPTX, name+": "+err.Error())
		}
		// "--- Slide N ---", one line per paragraph, a blank line: an
		// empty slide keeps its marker and one blank line (B2).
		text := fmt.Sprintf("--- Slide %d ---\n", i+1)
		if len(paras) > 0 {
			text += strings.Join(paras, "\n") + "\n"
		}
		if err := out.add(text + "\n"); err != nil {
			return nil, err
		}
	}
	doc.Text = out.String()
	return doc, nil
}

// slideOrder returns the slide part names in presentation order.
func (o *ooxml) slideOrder() ([]string, error) {
	pres, ok, err := o.part("ppt/presentation.xml")
	if err != nil {
		return nil, err
	}
	rels, okRels, err := o.part("ppt/_rels/presentation.xml.rels")
	if err != nil {
		return nil, err
	}
	if !ok || !okRels {
		return nil, malformed(PPTX, "no ppt/presentation.xml with its relationships")
	}
	var rs struct {
		Rel []struct {
			ID     string `xml:"Id,attr"`
			Type   string `xml:"Type,attr"`
			Target string `xml:"Target,attr"`
		} `xml:"Relationship"`
	}
	if err := xml.Unmarshal(rels, &rs); err != nil {
		return nil, malformed(PPTX, "presentation relationships: "+err.Error())
	}
	targets := map[string]string{}
	for _, r := range rs.Rel {
		if r.Type == relSlide {
			targets[r.ID] = path.Join("ppt", r.Target)
			if strings.HasPrefix(r.Target, "/") {
				targets[r.ID] = strings.TrimPrefix(r.Target, "/")
			}
		}
	}
	d := xml.NewDecoder(bytes.NewReader(pres))
	var order []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, malformed(PPTX, "ppt/presentation.xml: "+err.Error())
		}
		if t, ok := tok.(xml.StartElement); ok && t.Name.Space == nsPresent && t.Name.Local == "sldId" {
			if target, ok := targets[attr(t, nsRel, "id")]; ok {
				order = append(order, target)
			}
		}
	}
	return order, nil
}

// drawingParagraphs returns the non-blank a:p paragraphs of a DrawingML
// part, their a:t runs joined.
func drawingParagraphs(body []byte) ([]string, error) {
	d := xml.NewDecoder(bytes.NewReader(body))
	var (
		paras  []string
		cur    strings.Builder
		inText bool
	)
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return paras, nil
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space == nsDrawing {
				switch t.Name.Local {
				case "t":
					inText = true
				case "br":
					cur.WriteByte('\n')
				}
			}
		case xml.CharData:
			if inText {
				cur.Write(t)
			}
		case xml.EndElement:
			if t.Name.Space != nsDrawing {
				continue
			}
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				if s := strings.TrimSpace(cur.String()); s != "" {
					paras = append(paras, s)
				}
				cur.Reset()
			}
		}
	}
}
