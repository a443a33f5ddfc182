package config

import (
	"github.com/contextd/contextd"
)

// readKnowledge reads the knowledge tools' settings:
//
//	KNOWLEDGE_SOURCES           name=/path,... folders mirrored read-only as [source] scopes
//	KNOWLEDGE_WORKERS           ingestion workers, 1-64 (default min(4, GOMAXPROCS))
//	KNOWLEDGE_MAX_UPLOAD_MB     decoded size limit of one file, 1-1024 (default 30 MB = 30,000,000 bytes)
//	KNOWLEDGE_MIN_SCORE         search_knowledge's default minScore, 0-1 (default 0)
//
// New containers take ACCESS_CONTROL_DEFAULT_VISIBILITY and need
// ACCESS_CONTROL_PUBLISH_ROLE to be public, as any entry.
func readKnowledge(r *envReader, c *Config) {
	k := &c.Engine.Knowledge
	if v, ok := r.lookup("KNOWLEDGE_SOURCES"); ok {
		src, err := contextd.ParseKnowledgeSources(v)
		if err != nil {
			r.fail("KNOWLEDGE_SOURCES", v, err.Error())
		}
		k.Sources = src
	}
	if _, ok := r.lookup("KNOWLEDGE_WORKERS"); ok {
		k.Workers = r.intRange("KNOWLEDGE_WORKERS", 0, 1, 64)
	}
	if _, ok := r.lookup("KNOWLEDGE_MAX_UPLOAD_MB"); ok {
		k.MaxUploadBytes = int64(r.intRange("KNOWLEDGE_MAX_UPLOAD_MB", 30, 1, 1024)) * 1_000_000
	}
	if _, ok := r.lookup("KNOWLEDGE_MIN_SCORE"); ok {
		k.MinScore = r.floatBetween("KNOWLEDGE_MIN_SCORE", 0, 0, 1)
	}
}
