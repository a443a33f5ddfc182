package webui

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/cerrors"
)

// pageSizes are the list's page sizes; the first is the default.
var pageSizes = []int{30, 10, 100}

type entriesData struct {
	F        listFilter
	Results  []contextd.EntryView
	Error    string
	Problems []string
	Prev     int
	Next     int
	HasPrev  bool
	HasNext  bool
	Sizes    []int
}

// listFilter is the list's and the search's filter form.
type listFilter struct {
	Thread, Source, Tags, Meta, Start, End string
	Limit, Offset                          int
}

func readFilter(r *http.Request) listFilter {
	q := r.URL.Query()
	f := listFilter{Thread: strings.TrimSpace(q.Get("thread")), Source: strings.TrimSpace(q.Get("source")),
		Tags: strings.TrimSpace(q.Get("tags")), Meta: strings.TrimSpace(q.Get("meta")),
		Start: strings.TrimSpace(q.Get("start")), End: strings.TrimSpace(q.Get("end"))}
	f.Limit, _ = strconv.Atoi(q.Get("limit"))
	if f.Limit <= 0 || f.Limit > 100 {
		f.Limit = pageSizes[0]
	}
	f.Offset, _ = strconv.Atoi(q.Get("offset"))
	f.Offset = max(f.Offset, 0)
	return f
}

// splitList splits a comma-separated field, dropping blanks; nil when empty.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// searchFilter is the tools' filter of the form: the metadata field takes
// key=value pairs separated by commas (exact matches, as the tools'
// metadata argument).
func (f listFilter) searchFilter() contextd.SearchFilter {
	sf := contextd.SearchFilter{ThreadID: f.Thread, Source: f.Source, Tags: splitList(f.Tags), StartDate: f.Start, EndDate: f.End}
	for _, kv := range splitList(f.Meta) {
		k, v, _ := strings.Cut(kv, "=")
		if sf.Metadata == nil {
			sf.Metadata = map[string]any{}
		}
		sf.Metadata[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return sf
}

// threadsPerPage is the threads page's page size.
const threadsPerPage = 100

type threadsData struct {
	Threads          []contextd.ThreadView
	Offset           int
	HasPrev, HasNext bool
	Prev, Next       int
}

// threadsPage lists the threads (list_threads). It is a page of its own:
// list_threads counts every readable entry per thread, 0.5 s at 100,000
// entries, where the entries page's newest 30 take 2 ms.
func (u *UI) threadsPage(w http.ResponseWriter, r *http.Request) {
	off, _ := strconv.Atoi(r.URL.Query().Get("offset"))
	off = max(off, 0)
	res, err := u.eng.ListThreads(r.Context(), contextd.ListThreadsRequest{Limit: threadsPerPage, Offset: off})
	if err != nil {
		u.fail(w, r, err)
		return
	}
	d := threadsData{Threads: res.Threads, Offset: off, HasPrev: off > 0, HasNext: len(res.Threads) == threadsPerPage,
		Prev: max(off-threadsPerPage, 0), Next: off + threadsPerPage}
	u.render(w, r, "threads", "Threads", d)
}

func (u *UI) entriesPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	f := readFilter(r)
	d := entriesData{F: f, Sizes: pageSizes}
	res, err := u.eng.Search(ctx, contextd.SearchRequest{SearchFilter: f.searchFilter(), Limit: f.Limit, Offset: f.Offset})
	if err != nil {
		d.Error = u.userMessage(err)
	} else {
		d.Results, d.Error, d.Problems = res.Results, res.Error, res.ValidationErrors
		d.HasNext = res.Count == f.Limit
	}
	d.HasPrev = f.Offset > 0
	d.Prev, d.Next = max(f.Offset-f.Limit, 0), f.Offset+f.Limit
	u.render(w, r, "entries", "Entries", d)
}

type entryData struct {
	E       contextd.EntryView
	Grants  []contextd.GrantView
	Meta    string
	Tags    string
	Message string
	Error   string
}

// entryPage shows one readable entry; an unreadable one is not found,
// as in get_context_by_ids.
func (u *UI) entryPage(w http.ResponseWriter, r *http.Request) {
	u.showEntry(w, r, http.StatusOK, r.URL.Query().Get("msg"), "")
}

// entryMessages are the confirmations a redirect may ask for by key, so
// no free text travels in the URL.
var entryMessages = map[string]string{"saved": "Saved.", "shared": "Grant added.", "unshared": "Grant removed."}

func (u *UI) showEntry(w http.ResponseWriter, r *http.Request, status int, msgKey, errText string) {
	ctx := r.Context()
	id := r.PathValue("id")
	ents, err := u.eng.Get(ctx, contextd.GetRequest{ContextIDs: []string{id}})
	if err != nil {
		u.fail(w, r, err)
		return
	}
	if len(ents) == 0 {
		u.fail(w, r, cerrors.New(cerrors.ErrNotFound, "No readable entry has the id %s.", id))
		return
	}
	d := entryData{E: ents[0], Meta: pretty(ents[0].Metadata), Tags: strings.Join(ents[0].Tags, ", "),
		Message: entryMessages[msgKey], Error: errText}
	if d.E.IsOwner {
		g, err := u.eng.ListGrants(ctx, contextd.ListGrantsRequest{ContextID: d.E.ID})
		if err != nil {
			d.Error = u.userMessage(err)
		} else {
			d.Grants = g.Grants
		}
	}
	w.WriteHeader(status)
	u.render(w, r, "entry", "Entry "+d.E.ID, d)
}

// entryEdit updates text, tags, metadata and visibility through
// update_context's validation; a refusal shows the entry again with the
// tool's message.
func (u *UI) entryEdit(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	text := r.PostFormValue("text")
	req := contextd.UpdateRequest{ContextID: id, Text: &text, Tags: splitList(r.PostFormValue("tags"))}
	if req.Tags == nil {
		req.Tags = []string{}
	}
	if m := strings.TrimSpace(r.PostFormValue("metadata")); m != "" {
		if err := json.Unmarshal([]byte(m), &req.Metadata); err != nil || req.Metadata == nil {
			u.showEntry(w, r, http.StatusBadRequest, "", "metadata must be a JSON object")
			return
		}
	} else {
		req.Metadata = map[string]any{}
	}
	if v := r.PostFormValue("visibility"); v != "" {
		req.Visibility = &v
	}
	if _, err := u.eng.Update(r.Context(), req); err != nil {
		u.showEntry(w, r, statusOf(err), "", u.userMessage(err))
		return
	}
	http.Redirect(w, r, Prefix+"/entry/"+id+"?msg=saved", http.StatusSeeOther)
}

func (u *UI) entryDelete(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	res, err := u.eng.Delete(r.Context(), contextd.DeleteRequest{ContextIDs: []string{id}})
	if err == nil && res.DeletedCount == 0 {
		// delete_context succeeds with a count of 0 for an id the caller
		// cannot delete; the page says so instead of going back to a list.
		err = cerrors.New(cerrors.ErrNotFound, "No entry was deleted: %s is not an entry you may delete.", id)
	}
	if err != nil {
		u.fail(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"/", http.StatusSeeOther)
}

func (u *UI) grantRequest(r *http.Request) contextd.ShareRequest {
	return contextd.ShareRequest{ContextID: r.PathValue("id"), PrincipalType: r.PostFormValue("principal_type"),
		PrincipalID: strings.TrimSpace(r.PostFormValue("principal_id")), Permission: r.PostFormValue("permission")}
}

func (u *UI) entryShare(w http.ResponseWriter, r *http.Request) {
	req := u.grantRequest(r)
	if _, err := u.eng.Share(r.Context(), req); err != nil {
		u.showEntry(w, r, statusOf(err), "", u.userMessage(err))
		return
	}
	http.Redirect(w, r, Prefix+"/entry/"+req.ContextID+"?msg=shared", http.StatusSeeOther)
}

func (u *UI) entryUnshare(w http.ResponseWriter, r *http.Request) {
	req := u.grantRequest(r)
	if _, err := u.eng.Unshare(r.Context(), req); err != nil {
		u.showEntry(w, r, statusOf(err), "", u.userMessage(err))
		return
	}
	http.Redirect(w, r, Prefix+"/entry/"+req.ContextID+"?msg=unshared", http.StatusSeeOther)
}
