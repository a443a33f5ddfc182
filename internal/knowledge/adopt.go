package knowledge

import (
	"context"
	"sync"
	"time"
)

// Work another process left. A document stays Pending or Processing while
// the process that accepted its upload ingests it; were that process
// killed, the document would wait for the next start of any process (Open
// queues every unfinished document). So each process also watches, through
// the change log, the unfinished documents it did not queue itself, and
// queues one whose upload has made no progress (no status change) for
// Options.AdoptAfter. If the other process was only slow, both ingest and
// the second commit finds the document done (ingest's job and status
// checks): work is repeated, nothing is lost or written twice.

// DefaultAdoptAfter is the default of Options.AdoptAfter: longer than an
// ordinary document takes to parse, chunk and embed.
const DefaultAdoptAfter = 2 * time.Minute

// seenJob is an unfinished upload job of another process and when its
// document's status last changed.
type seenJob struct {
	job    job
	status string
	since  time.Time
}

// adopter tracks the unfinished documents by id.
type adopter struct {
	mu   sync.Mutex
	jobs map[string]seenJob
}

// note records document id's state from the log: an unfinished job, or
// (done) that it needs no watching.
func (a *adopter) note(id string, j job, status string, done bool, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if done {
		delete(a.jobs, id)
		return
	}
	if a.jobs == nil {
		a.jobs = map[string]seenJob{}
	}
	if cur, ok := a.jobs[id]; ok && cur.job.id == j.id && cur.status == status {
		return // no progress: keep the older time
	}
	a.jobs[id] = seenJob{job: j, status: status, since: now}
}

// stale returns the jobs unchanged since before cutoff, and restarts
// their clocks (one adoption per AdoptAfter at most).
func (a *adopter) stale(cutoff, now time.Time) []job {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []job
	for id, s := range a.jobs {
		if s.since.Before(cutoff) {
			out = append(out, s.job)
			s.since = now
			a.jobs[id] = s
		}
	}
	return out
}

// adopt runs until ctx ends: every AdoptAfter/4 it catches the index up
// with the log (so a read after a long run of writes has little left to
// apply; the index is not woken by each commit, see start), writes a
// snapshot when one is due, and queues the stale jobs not already
// queued or running here.
func (s *Service) adopt(ctx context.Context) {
	if s.indexed(ctx) != nil {
		return
	}
	t := time.NewTicker(max(s.opt.AdoptAfter/4, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := s.fol.CatchUp(ctx); err != nil {
			if ctx.Err() == nil {
				s.log.Warn("knowledge index: catch-up failed", "error", err)
			}
			continue
		}
		target{s}.MaybeSnapshot()
		now := time.Now()
		for _, j := range s.adopter.stale(now.Add(-s.opt.AdoptAfter), now) {
			if !s.q.mine(j.id) {
				s.log.Info("knowledge: ingesting a document another process left unfinished", "document", j.doc)
				s.q.push(j)
			}
		}
	}
}
