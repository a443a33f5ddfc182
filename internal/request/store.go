package request

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/index/pyfmt"
	"github.com/contextd/contextd/persist"
)

// StoreInput is a store request as the caller sent it (the fields of the
// engine's StoreRequest).
type StoreInput struct {
	ThreadID    string
	Source      string
	Text        string
	Images      []ImageInput // nil = absent
	Metadata    map[string]any
	Tags        []string
	Visibility  string // "" uses Options.DefaultVisibility
	Deduplicate *bool  // nil means true
}

// Store is a validated store request, ready for the transaction.
type Store struct {
	ThreadID, Source, Text string
	Hash                   string // ContentHash of Text
	Visibility             string
	Metadata               json.RawMessage // nil = absent
	Tags                   []string        // normalized; nil = absent
	Images                 []persist.Image // decoded; nil = absent
	Dedup                  bool
}

// ContentHash is the hex SHA-256 of an entry's text, which deduplication
// compares.
func ContentHash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// ValidateStore validates a store request in the documented order: the
// first failing rule is the error the caller sees.
func ValidateStore(in StoreInput, o Options) (*Store, error) {
	ps := &Store{Source: in.Source, Dedup: in.Deduplicate == nil || *in.Deduplicate}
	if ps.Source != "user" && ps.Source != "agent" {
		return nil, cerrors.Invalidf(`Missing or invalid source (must be "user" or "agent")`)
	}
	ps.ThreadID = pyfmt.Strip(in.ThreadID)
	ps.Text = pyfmt.Strip(in.Text)
	if ps.ThreadID == "" {
		return nil, cerrors.Invalidf("thread_id cannot be empty or whitespace")
	}
	if ps.Text == "" {
		return nil, cerrors.Invalidf("text cannot be empty or whitespace")
	}
	if err := CheckTextLen(ps.Text, o); err != nil {
		return nil, err
	}
	ps.Visibility = in.Visibility
	if ps.Visibility == "" {
		ps.Visibility = o.DefaultVisibility
	}
	if ps.Visibility == "" {
		ps.Visibility = VisibilityPrivate
	}
	if err := CheckVisibility(ps.Visibility, o); err != nil {
		return nil, err
	}
	if in.Images != nil {
		imgs, err := DecodeImages(in.Images, o)
		if err != nil {
			return nil, err
		}
		ps.Images = imgs
	}
	if err := CheckMetadataValues("metadata", anyMap(in.Metadata)); err != nil {
		return nil, err
	}
	if err := CheckStorable("thread_id", ps.ThreadID); err != nil {
		return nil, err
	}
	if err := CheckStorable("text", ps.Text); err != nil {
		return nil, err
	}
	for _, t := range in.Tags {
		if err := CheckStorable("tags", t); err != nil {
			return nil, err
		}
	}
	if err := CheckTagCaps(in.Tags); err != nil {
		return nil, err
	}
	ps.Tags = NormalizeTags(in.Tags)
	if n := RuneLen(ps.ThreadID); n > MaxThreadIDLen {
		return nil, cerrors.Invalidf("thread_id is too long: %d characters, maximum is %d characters", n, MaxThreadIDLen)
	}
	if in.Metadata != nil {
		if err := CheckIndexedFields(o.IndexedFields, in.Metadata); err != nil {
			return nil, err
		}
		raw, err := MarshalMetadata("metadata", in.Metadata)
		if err != nil {
			return nil, err
		}
		ps.Metadata = raw
	}
	ps.Hash = ContentHash(ps.Text)
	return ps, nil
}

// anyMap keeps a nil map a nil interface, so absent metadata checks nothing.
func anyMap(m map[string]any) any {
	if m == nil {
		return nil
	}
	return m
}

func validVisibility(v string) bool { return v == VisibilityPrivate || v == VisibilityPublic }

// CheckVisibility validates a visibility value and the publish gate.
func CheckVisibility(v string, o Options) error {
	if !validVisibility(v) {
		return cerrors.Invalidf("visibility must be one of 'private', 'public'")
	}
	if v == VisibilityPublic && o.PublishRole != "" && !o.MayPublish {
		return cerrors.Invalidf("Setting visibility 'public' requires the '%s' role (ACCESS_CONTROL_PUBLISH_ROLE), which the caller does not have", o.PublishRole)
	}
	return nil
}
