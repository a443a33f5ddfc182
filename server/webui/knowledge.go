package webui

import (
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/contextd/contextd"
)

type containersData struct {
	Containers []contextd.KnowledgeContainer
	Error      string
	Name, Desc string
}

func (u *UI) containersPage(w http.ResponseWriter, r *http.Request) {
	u.showContainers(w, r, http.StatusOK, containersData{})
}

func (u *UI) showContainers(w http.ResponseWriter, r *http.Request, status int, d containersData) {
	cs, err := u.eng.ListKnowledgeContainers(r.Context())
	if err != nil {
		u.fail(w, r, err)
		return
	}
	d.Containers = cs
	w.WriteHeader(status)
	u.render(w, r, "containers", "Knowledge", d)
}

func (u *UI) containerCreate(w http.ResponseWriter, r *http.Request) {
	req := contextd.KnowledgeCreateRequest{Name: r.PostFormValue("name"), Description: r.PostFormValue("description")}
	c, err := u.eng.CreateKnowledgeContainer(r.Context(), req)
	if err != nil {
		u.showContainers(w, r, statusOf(err), containersData{Error: u.userMessage(err), Name: req.Name, Desc: req.Description})
		return
	}
	http.Redirect(w, r, Prefix+"/knowledge/"+c.ID, http.StatusSeeOther)
}

func (u *UI) containerDelete(w http.ResponseWriter, r *http.Request) {
	err := u.eng.DeleteKnowledgeContainer(r.Context(), contextd.KnowledgeContainerRequest{Container: r.PathValue("c")})
	if err != nil {
		u.fail(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"/knowledge", http.StatusSeeOther)
}

// crumb is one folder of the path above the listing.
type crumb struct{ Name, Path string }

type containerData struct {
	S       *contextd.KnowledgeStats
	L       *contextd.KnowledgeListing
	Crumbs  []crumb
	Parent  string
	Pending bool
}

// describe returns the figures of the path's container, or shows the
// error page and returns nil.
func (u *UI) describe(w http.ResponseWriter, r *http.Request) *contextd.KnowledgeStats {
	st, err := u.eng.DescribeKnowledgeContainer(r.Context(), contextd.KnowledgeContainerRequest{Container: r.PathValue("c")})
	if err != nil {
		u.fail(w, r, err)
		return nil
	}
	return st
}

func (u *UI) containerPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	c := r.PathValue("c")
	st := u.describe(w, r)
	if st == nil {
		return
	}
	l, err := u.eng.ListKnowledgeFiles(ctx, contextd.KnowledgeListFilesRequest{Container: c, Path: r.URL.Query().Get("path")})
	if err != nil {
		u.fail(w, r, err)
		return
	}
	d := containerData{S: st, L: l}
	acc := "/"
	for _, p := range strings.Split(strings.Trim(l.Folder, "/"), "/") {
		if p != "" {
			acc += p + "/"
			d.Crumbs = append(d.Crumbs, crumb{p, acc})
		}
	}
	for _, f := range l.Files {
		if f.Status != "Ready" && f.Status != "Failed" {
			d.Pending = true
		}
	}
	u.render(w, r, "container", "Knowledge: "+st.Container.Name, d)
}

// fileStatus is one document of files.json.
type fileStatus struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	Size   int64  `json:"size"`
}

// filesJSON answers the page's status polling: the documents of one folder.
func (u *UI) filesJSON(w http.ResponseWriter, r *http.Request) {
	l, err := u.eng.ListKnowledgeFiles(r.Context(), contextd.KnowledgeListFilesRequest{Container: r.PathValue("c"), Path: r.URL.Query().Get("path")})
	if err != nil {
		writeJSON(w, statusOf(err), map[string]string{"error": u.userMessage(err)})
		return
	}
	out := make([]fileStatus, len(l.Files))
	for i, f := range l.Files {
		out[i] = fileStatus{ID: f.ID, Name: f.Name, Status: f.Status, Error: f.Error, Size: f.Size}
	}
	writeJSON(w, http.StatusOK, map[string]any{"files": out})
}

// upload takes one file as the raw request body (the page sends each
// dropped file with its own fetch, so each has its own progress and
// outcome) and hands it to upload_file's validation.
func (u *UI) upload(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, u.opts.MaxUploadBytes))
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": "the file is larger than " + strconv.FormatInt(mb.Limit, 10) + " bytes"})
			return
		}
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "the upload was interrupted"})
		return
	}
	content := base64.StdEncoding.EncodeToString(body)
	res, err := u.eng.UploadKnowledgeFile(r.Context(), contextd.KnowledgeUploadRequest{Container: r.PathValue("c"),
		FileName: q.Get("name"), Content: &content, Path: q.Get("path")})
	if err != nil {
		writeJSON(w, statusOf(err), map[string]string{"error": u.userMessage(err)})
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (u *UI) documentPage(w http.ResponseWriter, r *http.Request) {
	doc, err := u.eng.GetKnowledgeDocument(r.Context(), contextd.KnowledgeDocumentRequest{Container: r.PathValue("c"), FileID: r.PathValue("id")})
	if err != nil {
		u.fail(w, r, err)
		return
	}
	u.render(w, r, "document", doc.Name, struct {
		C   string
		Doc *contextd.KnowledgeDocument
	}{r.PathValue("c"), doc})
}

func (u *UI) documentDelete(w http.ResponseWriter, r *http.Request) {
	c := r.PathValue("c")
	doc, err := u.eng.DeleteKnowledgeFile(r.Context(), contextd.KnowledgeDocumentRequest{Container: c, FileID: r.PathValue("id")})
	if err != nil {
		u.fail(w, r, err)
		return
	}
	folder := doc.Path
	if i := strings.LastIndex(folder, "/"); i >= 0 {
		folder = folder[:i+1]
	}
	http.Redirect(w, r, Prefix+"/knowledge/"+c+"?path="+url.QueryEscape(folder), http.StatusSeeOther)
}

type ksearchData struct {
	C       *contextd.KnowledgeStats
	Q, Mode string
	Res     *contextd.KnowledgeSearchResponse
	Error   string
}

func (u *UI) knowledgeSearchPage(w http.ResponseWriter, r *http.Request) {
	st := u.describe(w, r)
	if st == nil {
		return
	}
	q := r.URL.Query()
	d := ksearchData{C: st, Q: q.Get("q"), Mode: q.Get("mode")}
	if d.Mode == "" {
		d.Mode = contextd.KnowledgeHybrid
	}
	if strings.TrimSpace(d.Q) != "" {
		var err error
		d.Res, err = u.eng.SearchKnowledge(r.Context(), contextd.KnowledgeSearchRequest{Container: r.PathValue("c"), Query: d.Q, Mode: d.Mode})
		if err != nil {
			w.WriteHeader(statusOf(err))
			d.Error = u.userMessage(err)
		}
	}
	u.render(w, r, "ksearch", "Search "+st.Container.Name, d)
}
