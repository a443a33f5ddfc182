package knowledge

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/index/extract"
	"github.com/contextd/contextd/internal/follow"
	"github.com/contextd/contextd/internal/ids"
	"github.com/contextd/contextd/model"
	"github.com/contextd/contextd/persist"
)

// Options configure a Service. The zero value means the defaults.
type Options struct {
	// Workers is the number of ingestion workers (default min(4, GOMAXPROCS)).
	Workers int
	// MaxUploadBytes caps one decoded file (default 30 MB, the decision
	// of requirements I.8: the upstream request-body limit).
	MaxUploadBytes int64
	// Visibility of new containers: "private" (default) or "public";
	// documents take their container's.
	Visibility string
	// PublishRole, when set, is the role a caller needs to create a
	// container while Visibility is "public" (ACCESS_CONTROL_PUBLISH_ROLE,
	// as for any public entry).
	PublishRole string
	// MinScore is the server's default minScore (default 0).
	MinScore float64
	// Alpha weighs the semantic side of Hybrid fusion (default 0.5).
	Alpha *float64
	// Extract bounds one parse (index/extract defaults).
	Extract extract.Options
	// Logger receives ingestion failures' details (nil discards them).
	Logger *slog.Logger
	// Sources are the folders mirrored read-only as [source] scopes
	// (KNOWLEDGE_SOURCES); SourceOwner owns their entries (default
	// DefaultSourceOwner) and SourceDebounce is the watcher's quiet time
	// before a re-sync (default ingest.DefaultDebounce).
	Sources        []Source
	SourceOwner    string
	SourceDebounce time.Duration
	// SnapshotPath, when set, is the file of the chunk index's snapshot
	// (its keyword streams, vectors and change-log mark), so a restart
	// resumes from it instead of chunking and embedding every document
	// again; "" keeps the index in memory only.
	SnapshotPath string
	// AdoptAfter is how long a document another process accepted may
	// stay Pending or Processing with no progress before this process
	// ingests it itself (that process may have died; adopt.go). Default
	// DefaultAdoptAfter.
	AdoptAfter time.Duration
	// MaxQueryTerms bounds the distinct terms a Keyword query searches
	// per stream (keyword_limit.go; 0: DefaultMaxQueryTerms).
	MaxQueryTerms int
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// DefaultMaxUploadBytes is the default decoded-size limit of one file.
const DefaultMaxUploadBytes = 30_000_000

// Service owns the knowledge containers and documents of one store, their
// ingestion workers and the chunk index search_knowledge reads.
type Service struct {
	st      persist.Store
	feed    *follow.Feed
	emb     model.Embedder
	opt     Options
	alpha   float64
	ids     *ids.Generator
	log     *slog.Logger
	idx     *chunkIndex
	fol     *follow.Follower // applies the change log to idx
	built   builtCache       // this process's ingestion results, until applied
	adopter adopter          // other processes' unfinished uploads (adopt.go)
	q       *queue
	jobs    running
	// createMu serializes the duplicate check and insert of a container
	// name (H07: ten parallel creates, one success).
	createMu sync.Mutex
	wg       sync.WaitGroup
	stop     context.CancelFunc
	// ready closes when the chunk index is loaded or rebuilt and follows
	// the change log; startErr is set before it closes if that failed.
	ready    chan struct{}
	startErr error
	saveMu   sync.Mutex // one snapshot write at a time
	lastSave time.Time
}

// indexed waits until the chunk index is loaded and following.
func (s *Service) indexed(ctx context.Context) error {
	select {
	case <-s.ready:
		if s.startErr != nil {
			return fmt.Errorf("knowledge index: %w", s.startErr)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Open starts a Service over st, whose change log feed carries: the
// chunk index is restored from its snapshot (Options.SnapshotPath) or
// rebuilt from every document of the store, in the background (reads
// wait for it, the server answers at once), then follows the log; every
// document still Pending or Processing (work an earlier process left
// unfinished, perhaps killed) is queued again; the workers start. emb may
// be nil: then Semantic search has no vectors and Hybrid is keyword-only.
func Open(ctx context.Context, st persist.Store, feed *follow.Feed, emb model.Embedder, opt Options) (*Service, error) {
	if opt.Workers <= 0 {
		opt.Workers = min(4, runtime.GOMAXPROCS(0))
	}
	if opt.MaxUploadBytes <= 0 {
		opt.MaxUploadBytes = DefaultMaxUploadBytes
	}
	if opt.Visibility == "" {
		opt.Visibility = "private"
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.SourceOwner == "" {
		opt.SourceOwner = DefaultSourceOwner
	}
	if opt.AdoptAfter <= 0 {
		opt.AdoptAfter = DefaultAdoptAfter
	}
	s := &Service{st: st, feed: feed, emb: emb, opt: opt, alpha: 0.5, ids: ids.NewGenerator(opt.Now), log: opt.Logger,
		idx: newChunkIndex(), q: newQueue(), lastSave: time.Now()}
	if opt.Alpha != nil {
		s.alpha = min(max(*opt.Alpha, 0), 1)
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.fol = feed.Follow("knowledge index", target{s})
	sources, err := s.ensureSources(ctx)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithCancel(context.Background())
	s.stop = cancel
	s.ready = make(chan struct{})
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(s.ready)
		start := time.Now()
		how, err := s.start(wctx)
		if err != nil {
			if wctx.Err() == nil {
				s.startErr = err
				s.log.Error("knowledge index start failed", "error", err)
			} else {
				s.startErr = wctx.Err()
			}
			return
		}
		s.idx.mu.RLock()
		n := len(s.idx.docs)
		s.idx.mu.RUnlock()
		s.log.Info("knowledge index ready", "how", how, "documents", n, "elapsed", time.Since(start))
	}()
	for range opt.Workers {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.work(wctx)
		}()
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.adopt(wctx)
	}()
	for _, src := range sources {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.mirror(wctx, src)
		}()
	}
	return s, nil
}

// start loads or rebuilds the chunk index, starts following the change
// log and queues the unfinished documents; how says which start it was.
func (s *Service) start(ctx context.Context) (how string, err error) {
	how = "rebuilt from the store: no snapshot configured"
	loaded := false
	if s.opt.SnapshotPath != "" {
		why, err := s.load(ctx)
		if err != nil {
			return "", err
		}
		if loaded = why == ""; loaded {
			how = "snapshot"
		} else {
			how = "rebuilt from the store: " + why
			s.idx = newChunkIndex() // nothing half-loaded stays
		}
	}
	if loaded {
		s.fol.Resume(s.idx.wm)
	} else if err := s.fol.Rebuild(ctx, s.rebuild); err != nil {
		return "", err
	}
	// Caught up here, then before every read and by the adopt loop; not
	// woken by every commit as the full-text and vector indexes are:
	// those serve the context tools' searches, this one only knowledge
	// reads, and a wake per commit cost every store_context about 650
	// allocations and 60 KB more (the change-log read of a background
	// catch-up; BenchmarkStoreSingle, 3,302-3,462 allocs/op before,
	// 4,013-4,165 with it).
	if err := s.fol.CatchUp(ctx); err != nil {
		return "", err
	}
	for _, j := range s.idx.unfinished() {
		s.q.push(j)
	}
	return how, nil
}

// Close stops the workers and the follower, then writes the chunk
// index's snapshot; a job in flight is abandoned and resumes at the next
// Open (its document is still Pending or Processing).
func (s *Service) Close() error {
	if s.stop == nil {
		return nil
	}
	s.stop()
	s.q.close()
	s.wg.Wait()
	s.stop = nil
	s.fol.Stop()
	if s.opt.SnapshotPath == "" || s.startErr != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Exact up to the last commit, so the next start replays nothing.
	if err := s.fol.CatchUp(ctx); err != nil {
		return err
	}
	return s.save(ctx)
}

// Container is one container as a principal sees it.
type Container struct {
	ID          string // 32 hex digits; FormatID for display
	Kind        string // KindManaged or KindSource
	Name        string
	Description string
	Owner       string
	Visibility  string
	CreatedAt   time.Time
	Writable    bool
}

var namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*[a-z0-9]$`)

// ValidName is the container-name rule: 2 to 128 of a-z, 0-9 and "-",
// starting and ending with a letter or digit.
func ValidName(n string) bool { return len(n) >= 2 && len(n) <= 128 && namePattern.MatchString(n) }

func notFound(input string) error {
	return cerrors.New(cerrors.ErrNotFound, "Container '%s' not found.", input)
}

// containers lists the containers acc may read, by name.
func (s *Service) containers(ctx context.Context, r persist.Reader, acc persist.Access) ([]Container, error) {
	res, err := r.Search(ctx, acc, persist.SearchQuery{Filter: persist.Filter{ThreadID: containerThread}, Limit: 1 << 30})
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	var out []Container
	for _, e := range res.Entries {
		rec, ok := decodeRecord(e.Metadata)
		if !ok || (rec.Kind != KindManaged && rec.Kind != KindSource) {
			continue
		}
		out = append(out, Container{ID: e.ID, Kind: rec.Kind, Name: rec.Name, Description: rec.Description, Owner: e.Owner,
			Visibility: e.Visibility, CreatedAt: e.CreatedAt})
	}
	// Two readable containers may share a name (one private to its owner,
	// one shared later); the older one answers to the name.
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// Create makes a container named name (trimmed) owned by acc.Principal.
// roles are the caller's roles, checked against Options.PublishRole.
func (s *Service) Create(ctx context.Context, acc persist.Access, roles []string, name, description string) (*Container, error) {
	// Surrounding spaces are trimmed (requirements A1); a control
	// character, which TrimSpace would drop unseen ("docs\n" was "docs"),
	// is refused.
	if hasControl(name) {
		return nil, cerrors.New(cerrors.ErrInvalid, "Container name must not contain control characters.")
	}
	name = strings.TrimSpace(name)
	if !ValidName(name) {
		return nil, cerrors.New(cerrors.ErrInvalid, "Container name must be 2-128 chars, lowercase alphanumeric and hyphens.")
	}
	if msg := checkDescription(description); msg != "" {
		return nil, cerrors.New(cerrors.ErrInvalid, "%s", msg)
	}
	if s.opt.Visibility == "public" && s.opt.PublishRole != "" && !slices.Contains(roles, s.opt.PublishRole) {
		return nil, cerrors.New(cerrors.ErrNotAuthorized, "Setting visibility 'public' requires the '%s' role (ACCESS_CONTROL_PUBLISH_ROLE), which the caller does not have", s.opt.PublishRole)
	}
	s.createMu.Lock()
	defer s.createMu.Unlock()
	var c *Container
	err := s.st.Write(ctx, func(tx persist.Tx) error {
		list, err := s.containers(ctx, tx, acc)
		if err != nil {
			return err
		}
		for _, x := range list {
			if x.Name == name {
				return cerrors.New(cerrors.ErrConflict, "Container '%s' already exists.", name)
			}
		}
		now := s.opt.Now().UTC()
		rec := record{Kind: KindManaged, Name: name, Description: strings.TrimSpace(description)}
		text := "Knowledge container " + name
		if rec.Description != "" {
			text += ": " + rec.Description
		}
		id := s.ids.Next()
		e, err := newEntry(id, containerThread, acc.Principal, s.opt.Visibility, text, rec, now)
		if err != nil {
			return err
		}
		if err := tx.Insert(ctx, e, nil); err != nil {
			return fmt.Errorf("insert container: %w", err)
		}
		c = &Container{ID: id, Kind: KindManaged, Name: name, Description: rec.Description, Owner: acc.Principal,
			Visibility: s.opt.Visibility, CreatedAt: now, Writable: true}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// ContainerInfo is a container with the number of its documents acc may
// read.
type ContainerInfo struct {
	Container
	Files int
}

// List returns the containers acc may read, by name, with their readable
// document counts.
func (s *Service) List(ctx context.Context, acc persist.Access) ([]ContainerInfo, error) {
	list, err := s.containers(ctx, s.st, acc)
	if err != nil {
		return nil, err
	}
	out := make([]ContainerInfo, len(list))
	for i, c := range list {
		docs, err := s.st.FilterIDs(ctx, acc, persist.Filter{ThreadID: docThreadPrefix + c.ID})
		if err != nil {
			return nil, fmt.Errorf("count documents: %w", err)
		}
		out[i] = ContainerInfo{Container: c, Files: len(docs)}
	}
	return out, nil
}

// Resolve finds the container input names: a UUID in any .NET form, else
// a name (trimmed, lower-cased). A container acc may not read is not
// found, in the same words as one that does not exist.
func (s *Service) Resolve(ctx context.Context, acc persist.Access, input string) (*Container, error) {
	list, err := s.containers(ctx, s.st, acc)
	if err != nil {
		return nil, err
	}
	id, isID := ParseID(input)
	name := strings.ToLower(strings.TrimSpace(input))
	for _, c := range list {
		if (isID && c.ID == id) || (!isID && c.Name == name) {
			st, found, err := s.st.State(ctx, acc, c.ID)
			if err != nil {
				return nil, fmt.Errorf("container access: %w", err)
			}
			if !found || !st.Readable {
				break
			}
			c.Writable = st.Writable
			return &c, nil
		}
	}
	return nil, notFound(input)
}

// ResolveManaged is Resolve for the tools that take containers only
// (list_files, get_document and every write tool): a source is not
// found, in the same words as an unknown id (API reference, "What is
// writable").
func (s *Service) ResolveManaged(ctx context.Context, acc persist.Access, input string) (*Container, error) {
	c, err := s.Resolve(ctx, acc, input)
	if err != nil {
		return nil, err
	}
	if c.Kind != KindManaged {
		return nil, notFound(input)
	}
	return c, nil
}

// ResolveWritable is Resolve for the write tools: a source is not found,
// a container acc may read but not write is refused with a message
// saying so.
func (s *Service) ResolveWritable(ctx context.Context, acc persist.Access, input string) (*Container, error) {
	c, err := s.ResolveManaged(ctx, acc, input)
	if err != nil {
		return nil, err
	}
	if !c.Writable {
		return nil, cerrors.New(cerrors.ErrNotAuthorized, "Container '%s' is read-only for you.", input)
	}
	return c, nil
}

// DeleteContainer removes an empty container. Emptiness counts every
// document, readable by acc or not: a container holding someone else's
// private file is not empty, and saying so tells nothing about the file.
func (s *Service) DeleteContainer(ctx context.Context, acc persist.Access, input string) error {
	c, err := s.ResolveWritable(ctx, acc, input)
	if err != nil {
		return err
	}
	if err := s.catchUp(ctx); err != nil {
		return err
	}
	return s.st.Write(ctx, func(tx persist.Tx) error {
		// The count is the index's, caught up just before; an upload
		// another process commits in between is refused by Upload's own
		// check that its container still exists.
		if n := s.idx.docCount(c.ID); n > 0 {
			return cerrors.New(cerrors.ErrConflict, "Container '%s' is not empty. Delete all files first.", input)
		}
		if _, err := tx.Delete(ctx, []string{c.ID}); err != nil {
			return fmt.Errorf("delete container: %w", err)
		}
		return nil
	})
}
