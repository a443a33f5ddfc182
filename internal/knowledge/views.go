package knowledge

import "github.com/contextd/contextd/api"

// The knowledge tools' results as the engine returns them, in package
// api's types: ids hyphenated, the service's records cut to what the
// caller sees.

// ContainerView is c as the caller sees it.
func ContainerView(c Container) api.KnowledgeContainer {
	return api.KnowledgeContainer{ID: FormatID(c.ID), Kind: c.Kind, Name: c.Name, Description: c.Description,
		Owner: c.Owner, Visibility: c.Visibility, CreatedAt: c.CreatedAt, Writable: c.Writable}
}

// ContainerViews are the containers of List, each with its readable
// document count.
func ContainerViews(list []ContainerInfo) []api.KnowledgeContainer {
	out := make([]api.KnowledgeContainer, len(list))
	for i, c := range list {
		out[i] = ContainerView(c.Container)
		out[i].Files = c.Files
	}
	return out
}

// StatsView is container_stats' answer for c.
func StatsView(c Container, st *Stats) *api.KnowledgeStats {
	return &api.KnowledgeStats{Container: ContainerView(c), Documents: st.Documents, Ready: st.Ready,
		Processing: st.Processing, Failed: st.Failed, Chunks: st.Chunks, Bytes: st.Bytes, Model: st.Model,
		Dims: st.Dims, Vectors: st.Vectors, LastIndexed: st.LastIndexed}
}

// DocumentView is d as the caller sees it; withText keeps its text
// (get_document only).
func DocumentView(d Doc, withText bool) *api.KnowledgeDocument {
	out := &api.KnowledgeDocument{ID: FormatID(d.ID), Name: d.Name, Path: d.Path, Size: d.Size,
		Status: d.Status, Error: d.Error, CreatedAt: d.CreatedAt}
	if withText {
		out.Text = d.Text
	}
	return out
}

// ListingView is one folder of list_files, its documents without text.
func ListingView(l *Listing) *api.KnowledgeListing {
	out := &api.KnowledgeListing{Folder: l.Folder, Dirs: l.Dirs, Files: make([]api.KnowledgeDocument, len(l.Files))}
	for i, d := range l.Files {
		out.Files[i] = *DocumentView(d, false)
	}
	return out
}

// UploadView is an accepted upload.
func UploadView(up *Uploaded) *api.KnowledgeUploadResponse {
	return &api.KnowledgeUploadResponse{DocumentID: FormatID(up.DocumentID), JobID: up.JobID, Path: up.Path}
}

// BulkViews are the results of a bulk call.
func BulkViews(res []BulkResult) []api.KnowledgeBulkResult {
	out := make([]api.KnowledgeBulkResult, len(res))
	for i, r := range res {
		out[i] = api.KnowledgeBulkResult{Error: r.Error, Rejected: r.Rejected}
		if r.Uploaded != nil {
			out[i].Uploaded = UploadView(r.Uploaded)
		}
	}
	return out
}

// SearchView is search_knowledge's answer in mode.
func SearchView(mode string, res *Result) *api.KnowledgeSearchResponse {
	out := &api.KnowledgeSearchResponse{Mode: mode, Total: res.Total, Elapsed: res.Elapsed, Hits: make([]api.KnowledgeHit, len(res.Hits))}
	for i, h := range res.Hits {
		out.Hits[i] = api.KnowledgeHit{Score: h.Score, DocumentID: FormatID(h.DocumentID), Name: h.Name,
			Path: h.Path, Chunk: h.Chunk, Text: h.Text, Passage: api.Passage{Text: h.Passage.Text, Start: h.Passage.Start, End: h.Passage.End,
				StartLine: h.Passage.StartLine, EndLine: h.Passage.EndLine}}
	}
	return out
}
