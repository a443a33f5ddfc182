package webui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
)

var errNoPrincipal = errors.New("token names no principal")

// page is what every template receives.
type page struct {
	Title string
	Nav   string // the template's name: the nav marks its link
	User  string
	CSRF  string
	D     any
}

var funcs = template.FuncMap{
	"highlight": highlight,
	"when":      when,
	"imgsrc":    imgsrc,
	"pretty":    pretty,
	"join":      strings.Join,
	"list":      func(s ...string) []string { return s },
	"add":       func(a, b int) int { return a + b },
	"sub":       func(a, b int) int { return a - b },
	"query":     query,
	"bytes":     humanBytes,
	"deref":     func(p *float64) float64 { return *p },
	"derefi":    func(p *int) int { return *p },
	"pct":       func(f float64) string { return fmt.Sprintf("%.0f%%", f*100) },
	"f3":        func(f float64) string { return fmt.Sprintf("%.3f", f) },
}

// parsePages parses each page template with the layout.
func parsePages() (map[string]*template.Template, error) {
	names, err := templateFS.ReadDir("templates")
	if err != nil {
		return nil, err
	}
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/partials.html")
	if err != nil {
		return nil, err
	}
	out := map[string]*template.Template{}
	for _, n := range names {
		if n.Name() == "layout.html" || n.Name() == "partials.html" {
			continue
		}
		t, err := template.Must(base.Clone()).ParseFS(templateFS, "templates/"+n.Name())
		if err != nil {
			return nil, err
		}
		out[strings.TrimSuffix(n.Name(), ".html")] = t
	}
	return out, nil
}

// render writes the page name; a failure to execute it is logged and
// answered 500 (the page is buffered, so nothing half-written is sent).
func (u *UI) render(w http.ResponseWriter, r *http.Request, name, title string, d any) {
	p := page{Title: title, Nav: name, D: d}
	if s := sessionFrom(r.Context()); s != nil {
		p.User, p.CSRF = s.p.ID, s.csrf
	}
	t, ok := u.pages[name]
	if !ok {
		u.log.Error("web ui template missing", "page", name)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout.html", p); err != nil {
		u.log.Error("web ui template", "page", name, "error", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = buf.WriteTo(w)
}

// fail shows err on the error page with its status.
func (u *UI) fail(w http.ResponseWriter, r *http.Request, err error) {
	w.WriteHeader(statusOf(err))
	u.render(w, r, "error", "Error", u.userMessage(err))
}

// writeJSON answers a script's request.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// highlight escapes a full-text highlight and keeps only its <mark>
// spans: the index wraps matches in <mark>…</mark> around the stored text
// unescaped, so everything else must be escaped here.
func highlight(s string) template.HTML {
	var b strings.Builder
	for {
		i := strings.Index(s, "<mark>")
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], "</mark>")
		if j < 0 {
			break
		}
		b.WriteString(template.HTMLEscapeString(s[:i]))
		b.WriteString("<mark>" + template.HTMLEscapeString(s[i+6:i+j]) + "</mark>")
		s = s[i+j+7:]
	}
	b.WriteString(template.HTMLEscapeString(s))
	return template.HTML(b.String()) //nolint:gosec // every part is escaped above
}

// when formats a wire time (RFC 3339) or a time.Time for people.
func when(v any) string {
	switch t := v.(type) {
	case time.Time:
		if t.IsZero() {
			return "never"
		}
		return t.UTC().Format("2006-01-02 15:04:05")
	case string:
		if p, err := time.Parse(time.RFC3339Nano, t); err == nil {
			return p.UTC().Format("2006-01-02 15:04:05")
		}
		return t
	}
	return fmt.Sprint(v)
}

var imageMime = regexp.MustCompile(`^image/(png|jpeg|gif|webp)$`)

// imgsrc is the data: URI of a stored image of a raster type; any other
// type (SVG included) is not shown.
func imgsrc(mime, b64 string) template.URL {
	if !imageMime.MatchString(mime) {
		return ""
	}
	return template.URL("data:" + mime + ";base64," + b64) //nolint:gosec // base64 of a raster image
}

func pretty(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var buf bytes.Buffer
	if json.Indent(&buf, raw, "", "  ") != nil {
		return string(raw)
	}
	return buf.String()
}

// query builds a query string from key/value pairs, leaving out empty values.
func query(kv ...any) template.URL {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		s := fmt.Sprint(kv[i+1])
		if s != "" && s != "0" {
			v.Set(fmt.Sprint(kv[i]), s)
		}
	}
	return template.URL("?" + v.Encode()) //nolint:gosec // url.Values encodes
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
