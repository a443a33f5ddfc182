// Package webui owns the web page for people: server-rendered pages
// (html/template) with a little plain JavaScript, embedded in the binary,
// to see, search and curate what the agents stored and to manage the
// knowledge containers. It calls nothing but the public facade
// (contextd.Engine) as the logged-in principal, so a page shows exactly
// what the tools would return to that principal and every write goes
// through the tools' validation and gives their errors.
//
// Security: a session is a random id in an HttpOnly, SameSite=Strict
// cookie, held in memory (a restart logs everybody out); every
// state-changing request carries the session's CSRF token (form field
// "csrf" or header X-CSRF-Token), else 403; every response carries a
// Content-Security-Policy without inline script or style, nosniff and
// frame-ancestors 'none'; the template engine escapes all output.
//
//	ui, err := webui.New(eng, webui.Options{Auth: authenticator})
//	mux.Handle(webui.Prefix+"/", ui)
package webui

import (
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/server/auth"
)

// Prefix is the path the pages live under.
const Prefix = "/ui"

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// csp allows scripts, styles and fetches from the page's own origin only;
// images also as data: URIs (an entry's images are shown inline).
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// Options configure the pages.
type Options struct {
	// Auth checks the token typed on the login page (the bearer token or
	// JWT of /mcp). Nil disables that form: only OneTimeToken logs in.
	Auth auth.Authenticator
	// OneTimeToken, when set, logs in as LocalPrincipal once through
	// LoginLink (contextd ui); it is spent on first use.
	OneTimeToken string
	// LocalPrincipal is the principal of the one-time link.
	LocalPrincipal string
	// SessionTTL ends a session idle this long (default 12 hours).
	SessionTTL time.Duration
	// MaxUploadBytes caps one uploaded file's body (default 32 MiB).
	MaxUploadBytes int64
	// Logger receives failures that are not the user's fault (nil discards).
	Logger *slog.Logger
}

// UI is the web page's http.Handler, to be mounted at Prefix+"/".
type UI struct {
	eng   *contextd.Engine
	opts  Options
	log   *slog.Logger
	sess  *sessions
	once  *oneTime
	pages map[string]*template.Template
	mux   *http.ServeMux
}

// New builds the pages over eng.
func New(eng *contextd.Engine, o Options) (*UI, error) {
	if o.SessionTTL <= 0 {
		o.SessionTTL = 12 * time.Hour
	}
	if o.MaxUploadBytes <= 0 {
		o.MaxUploadBytes = 32 << 20
	}
	u := &UI{eng: eng, opts: o, log: o.Logger, sess: newSessions(o.SessionTTL)}
	if u.log == nil {
		u.log = slog.New(slog.DiscardHandler)
	}
	if o.OneTimeToken != "" {
		u.once = &oneTime{token: o.OneTimeToken}
	}
	var err error
	if u.pages, err = parsePages(); err != nil {
		return nil, err
	}
	u.routes()
	return u, nil
}

// LoginLink is the path (below the server's origin) of the one-time login.
func (u *UI) LoginLink() string {
	if u.once == nil {
		return ""
	}
	return Prefix + "/login?once=" + u.opts.OneTimeToken
}

// NewToken returns a random URL-safe token of 32 bytes' entropy.
func NewToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (u *UI) routes() {
	m := http.NewServeMux()
	static, _ := fs.Sub(staticFS, "static")
	m.Handle("GET "+Prefix+"/static/", http.StripPrefix(Prefix+"/static/", withETags(static, http.FileServerFS(static))))
	m.HandleFunc("GET "+Prefix+"/login", u.loginPage)
	m.HandleFunc("POST "+Prefix+"/login", u.loginSubmit)
	m.HandleFunc("POST "+Prefix+"/logout", u.authed(u.logout))
	m.HandleFunc("GET "+Prefix+"/{$}", u.authed(u.entriesPage))
	m.HandleFunc("GET "+Prefix+"/threads", u.authed(u.threadsPage))
	m.HandleFunc("GET "+Prefix+"/entry/{id}", u.authed(u.entryPage))
	m.HandleFunc("POST "+Prefix+"/entry/{id}/edit", u.authed(u.entryEdit))
	m.HandleFunc("POST "+Prefix+"/entry/{id}/delete", u.authed(u.entryDelete))
	m.HandleFunc("POST "+Prefix+"/entry/{id}/share", u.authed(u.entryShare))
	m.HandleFunc("POST "+Prefix+"/entry/{id}/unshare", u.authed(u.entryUnshare))
	m.HandleFunc("GET "+Prefix+"/search", u.authed(u.searchPage))
	m.HandleFunc("GET "+Prefix+"/stats", u.authed(u.statsPage))
	m.HandleFunc("GET "+Prefix+"/knowledge", u.authed(u.containersPage))
	m.HandleFunc("POST "+Prefix+"/knowledge", u.authed(u.containerCreate))
	m.HandleFunc("GET "+Prefix+"/knowledge/{c}", u.authed(u.containerPage))
	m.HandleFunc("POST "+Prefix+"/knowledge/{c}/delete", u.authed(u.containerDelete))
	m.HandleFunc("GET "+Prefix+"/knowledge/{c}/files.json", u.authed(u.filesJSON))
	m.HandleFunc("POST "+Prefix+"/knowledge/{c}/upload", u.authed(u.upload))
	m.HandleFunc("GET "+Prefix+"/knowledge/{c}/doc/{id}", u.authed(u.documentPage))
	m.HandleFunc("POST "+Prefix+"/knowledge/{c}/doc/{id}/delete", u.authed(u.documentDelete))
	m.HandleFunc("GET "+Prefix+"/knowledge/{c}/search", u.authed(u.knowledgeSearchPage))
	u.mux = m
}

// withETags gives each embedded file an ETag of its content, so a browser
// revalidates the script and the style sheet (304) instead of fetching
// them again on every page; a new binary's files get new tags. (Embedded
// files have no modification time, so the file server sends no
// Last-Modified.)
func withETags(fsys fs.FS, next http.Handler) http.Handler {
	tags := map[string]string{}
	_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		tags[p] = `"` + hex.EncodeToString(sum[:8]) + `"`
		return nil
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if tag, ok := tags[r.URL.Path]; ok {
			w.Header().Set("ETag", tag)
			w.Header().Set("Cache-Control", "no-cache")
		}
		next.ServeHTTP(w, r)
	})
}

// ServeHTTP sets the security headers of every response, refuses a
// loopback request naming a foreign host (DNS rebinding) and routes.
func (u *UI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	if !strings.HasPrefix(r.URL.Path, Prefix+"/static/") {
		h.Set("Cache-Control", "no-store")
	}
	if !hostAllowed(r) {
		http.Error(w, "host not allowed", http.StatusForbidden)
		return
	}
	if r.URL.Path == Prefix {
		http.Redirect(w, r, Prefix+"/", http.StatusSeeOther)
		return
	}
	u.mux.ServeHTTP(w, r)
}

// hostAllowed refuses a request that arrived over loopback but names
// another host: a page of another origin whose name was rebound to
// 127.0.0.1 must not reach a local server.
func hostAllowed(r *http.Request) bool {
	ra, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return true
	}
	if ip := net.ParseIP(ra); ip == nil || !ip.IsLoopback() {
		return true
	}
	host := r.Host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		host = hh
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// userMessage is the text of err a user may see: an engine error's
// reference text, fixed words for an unreachable database, else a generic
// text (the details go to the log).
func (u *UI) userMessage(err error) string {
	if errors.Is(err, cerrors.ErrDatabaseUnavailable) {
		return cerrors.UnavailableText
	}
	var ce *cerrors.Error
	if errors.As(err, &ce) {
		return ce.Msg
	}
	u.log.Error("web ui", "error", err)
	return cerrors.UnexpectedText
}

// statusOf is the HTTP status of an engine error.
func statusOf(err error) int {
	switch {
	case errors.Is(err, cerrors.ErrInvalid):
		return http.StatusBadRequest
	case errors.Is(err, cerrors.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, cerrors.ErrNotAuthorized), errors.Is(err, cerrors.ErrReadOnly):
		return http.StatusForbidden
	case errors.Is(err, cerrors.ErrConflict):
		return http.StatusConflict
	case errors.Is(err, cerrors.ErrUnavailable):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}
