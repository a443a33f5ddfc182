package webui

import (
	"context"
	"crypto/subtle"
	"net/http"
	"sync"
	"time"

	"github.com/contextd/contextd"
)

const (
	sessionCookie = "contextd_ui"
	// loginCookie carries the login form's CSRF token (double submit):
	// before a session exists there is nothing else to bind it to.
	loginCookie = "contextd_ui_login"
	// maxSessions bounds the table: a flood of logins cannot grow memory
	// without limit; the oldest session is dropped first.
	maxSessions = 10000
)

type session struct {
	id, csrf string
	p        contextd.Principal
	expires  time.Time
}

// sessions is the memory-held table of logged-in browsers.
type sessions struct {
	mu  sync.Mutex
	m   map[string]*session
	ttl time.Duration
}

func newSessions(ttl time.Duration) *sessions {
	return &sessions{m: map[string]*session{}, ttl: ttl}
}

func (s *sessions) create(p contextd.Principal) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if len(s.m) >= maxSessions {
		var oldest *session
		for id, x := range s.m {
			if now.After(x.expires) {
				delete(s.m, id)
			} else if oldest == nil || x.expires.Before(oldest.expires) {
				oldest = x
			}
		}
		if len(s.m) >= maxSessions && oldest != nil {
			delete(s.m, oldest.id)
		}
	}
	x := &session{id: NewToken(), csrf: NewToken(), p: p, expires: now.Add(s.ttl)}
	s.m[x.id] = x
	return x
}

// get returns the live session of id and extends it.
func (s *sessions) get(id string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	x := s.m[id]
	if x == nil {
		return nil
	}
	now := time.Now()
	if now.After(x.expires) {
		delete(s.m, id)
		return nil
	}
	x.expires = now.Add(s.ttl)
	return x
}

func (s *sessions) drop(id string) {
	s.mu.Lock()
	delete(s.m, id)
	s.mu.Unlock()
}

// oneTime is the login link of contextd ui: it works once.
type oneTime struct {
	mu    sync.Mutex
	token string
	spent bool
}

func (o *oneTime) consume(token string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.spent || token == "" || subtle.ConstantTimeCompare([]byte(token), []byte(o.token)) != 1 {
		return false
	}
	o.spent = true
	return true
}

type sessionKey struct{}

func sessionFrom(ctx context.Context) *session {
	s, _ := ctx.Value(sessionKey{}).(*session)
	return s
}

func setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: Prefix, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil, MaxAge: maxAge})
}

// wantsJSON reports a script's request (fetch), answered with a status
// rather than a redirect to the login page.
func wantsJSON(r *http.Request) bool {
	return r.Header.Get("X-CSRF-Token") != "" || r.Header.Get("Accept") == "application/json"
}

// authed runs h as the session's principal. Without a session a page
// request goes to the login page and anything else gets 401; a
// state-changing request without the session's CSRF token gets 403.
func (u *UI) authed(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var s *session
		if c, err := r.Cookie(sessionCookie); err == nil {
			s = u.sess.get(c.Value)
		}
		if s == nil {
			if r.Method == http.MethodGet && !wantsJSON(r) {
				http.Redirect(w, r, Prefix+"/login", http.StatusSeeOther)
				return
			}
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			tok := r.Header.Get("X-CSRF-Token")
			if tok == "" {
				tok = r.PostFormValue("csrf")
			}
			if subtle.ConstantTimeCompare([]byte(tok), []byte(s.csrf)) != 1 {
				http.Error(w, "invalid or missing CSRF token", http.StatusForbidden)
				return
			}
		}
		ctx := contextd.WithPrincipal(context.WithValue(r.Context(), sessionKey{}, s), s.p)
		h(w, r.WithContext(ctx))
	}
}

type loginData struct {
	CSRF      string
	TokenForm bool
	Error     string
}

func (u *UI) loginPage(w http.ResponseWriter, r *http.Request) {
	if once := r.URL.Query().Get("once"); once != "" {
		if u.once == nil || !u.once.consume(once) {
			w.WriteHeader(http.StatusForbidden)
			u.render(w, r, "login", "Log in", loginData{TokenForm: u.opts.Auth != nil,
				Error: "This login link has been used or is not valid. Restart contextd ui for a new one."})
			return
		}
		u.startSession(w, r, contextd.Principal{ID: u.opts.LocalPrincipal})
		return
	}
	u.showLogin(w, r, http.StatusOK, "")
}

func (u *UI) showLogin(w http.ResponseWriter, r *http.Request, status int, msg string) {
	d := loginData{TokenForm: u.opts.Auth != nil, Error: msg}
	if d.TokenForm {
		d.CSRF = NewToken()
		setCookie(w, r, loginCookie, d.CSRF, 600)
	} else if msg == "" {
		d.Error = "Open the one-time login link printed by contextd ui."
	}
	w.WriteHeader(status)
	u.render(w, r, "login", "Log in", d)
}

func (u *UI) loginSubmit(w http.ResponseWriter, r *http.Request) {
	if u.opts.Auth == nil {
		http.Error(w, "token login is disabled", http.StatusForbidden)
		return
	}
	c, err := r.Cookie(loginCookie)
	form := r.PostFormValue("csrf")
	if err != nil || form == "" || subtle.ConstantTimeCompare([]byte(c.Value), []byte(form)) != 1 {
		http.Error(w, "invalid or missing CSRF token", http.StatusForbidden)
		return
	}
	p, err := u.opts.Auth(r.Context(), r.PostFormValue("token"))
	if err == nil && p.ID == "" {
		err = errNoPrincipal
	}
	if err != nil {
		u.log.Debug("web ui login refused", "remote", r.RemoteAddr, "error", err)
		u.showLogin(w, r, http.StatusUnauthorized, "The token was not accepted.")
		return
	}
	setCookie(w, r, loginCookie, "", -1)
	u.startSession(w, r, p)
}

func (u *UI) startSession(w http.ResponseWriter, r *http.Request, p contextd.Principal) {
	s := u.sess.create(p)
	setCookie(w, r, sessionCookie, s.id, 0)
	http.Redirect(w, r, Prefix+"/", http.StatusSeeOther)
}

func (u *UI) logout(w http.ResponseWriter, r *http.Request) {
	if s := sessionFrom(r.Context()); s != nil {
		u.sess.drop(s.id)
	}
	setCookie(w, r, sessionCookie, "", -1)
	http.Redirect(w, r, Prefix+"/login", http.StatusSeeOther)
}
