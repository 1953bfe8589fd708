package stream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"conductorbridge/bridge/event"
)

// Journal is a topic's append-only file: one JSON line per Publish,
//
//	{"e":[<events>],"c":<cursor>}
//
// so the events and the producer's resume point are written together, in
// one write(2). A torn last line (the bridge killed mid-write) is dropped
// on load, which rewinds cursor and ids together. When the file grows past
// a bound it is rewritten as one line holding the kept history.
//
// Writes are not fsynced: the journal must survive the bridge being killed,
// which the page cache covers, not the machine losing power.
type Journal struct {
	Path     string
	LastID   int64 // the newest id ever journaled, even if compacted away
	MaxBytes int64 // compact beyond this size; 0 means 4 MiB

	f    *os.File
	size int64
}

type journalLine struct {
	Events []json.RawMessage `json:"e,omitempty"`
	Cursor json.RawMessage   `json:"c,omitempty"`
}

// OpenJournal opens (creating if needed) the journal at path, 0600.
func OpenJournal(path string) (*Journal, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create journal dir: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open journal: %w", err)
	}
	return &Journal{Path: path, f: f}, nil
}

// Load reads the journal, keeping the newest max events and the last
// cursor, and truncates a torn or garbled tail so appends start clean.
func (j *Journal) Load(max int) ([]Item, json.RawMessage, error) {
	if _, err := j.f.Seek(0, io.SeekStart); err != nil {
		return nil, nil, fmt.Errorf("seek journal: %w", err)
	}
	var (
		items  []Item
		cursor json.RawMessage
		good   int64 // bytes of well-formed lines
	)
	r := bufio.NewReaderSize(j.f, 256<<10)
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			break // a line without its newline is torn: drop it
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read journal: %w", err)
		}
		var jl journalLine
		if json.Unmarshal(bytes.TrimSpace(line), &jl) != nil {
			break // garbled: everything after it is suspect too
		}
		batch := make([]Item, 0, len(jl.Events))
		ok := true
		for _, raw := range jl.Events {
			var e event.Event
			if json.Unmarshal(raw, &e) != nil || e.ID <= j.LastID {
				ok = false
				break
			}
			batch = append(batch, Item{Event: e, Data: raw})
			j.LastID = e.ID
		}
		if !ok {
			break
		}
		items = append(items, batch...)
		if len(items) > 2*max {
			items = append(items[:0:0], items[len(items)-max:]...)
		}
		if jl.Cursor != nil {
			cursor = jl.Cursor
		}
		good += int64(len(line))
	}
	if len(items) > max {
		items = items[len(items)-max:]
	}
	if err := j.f.Truncate(good); err != nil {
		return nil, nil, fmt.Errorf("truncate torn journal tail: %w", err)
	}
	if _, err := j.f.Seek(good, io.SeekStart); err != nil {
		return nil, nil, fmt.Errorf("seek journal: %w", err)
	}
	j.size = good
	return items, cursor, nil
}

// Append writes one batch. When the file has outgrown MaxBytes it is
// rewritten from history (the events kept before this batch), the batch and
// the current cursor, replacing the old file atomically.
func (j *Journal) Append(items []Item, cursor json.RawMessage, history []Item, max int, current json.RawMessage) error {
	line := encodeLine(items, cursor)
	limit := j.MaxBytes
	if limit <= 0 {
		limit = 4 << 20
	}
	if j.size+int64(len(line)) > limit {
		kept := append(append([]Item(nil), history...), items...)
		if len(kept) > max {
			kept = kept[len(kept)-max:]
		}
		if err := j.rewrite(encodeLine(kept, current)); err != nil {
			return err
		}
	} else {
		if _, err := j.f.Write(line); err != nil {
			return fmt.Errorf("append journal: %w", err)
		}
		j.size += int64(len(line))
	}
	if n := len(items); n > 0 {
		j.LastID = items[n-1].ID
	}
	return nil
}

func (j *Journal) rewrite(line []byte) error {
	tmp := j.Path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("compact journal: %w", err)
	}
	if _, err := f.Write(line); err != nil {
		f.Close()
		return fmt.Errorf("compact journal: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("compact journal: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("compact journal: %w", err)
	}
	if err := os.Rename(tmp, j.Path); err != nil {
		return fmt.Errorf("compact journal: %w", err)
	}
	old := j.f
	nf, err := os.OpenFile(j.Path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("reopen journal: %w", err)
	}
	old.Close()
	j.f, j.size = nf, int64(len(line))
	return nil
}

// Close closes the file.
func (j *Journal) Close() error { return j.f.Close() }

func encodeLine(items []Item, cursor json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteString(`{"e":[`)
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(it.Data)
	}
	b.WriteByte(']')
	if cursor != nil {
		b.WriteString(`,"c":`)
		b.Write(cursor)
	}
	b.WriteString("}\n")
	return b.Bytes()
}
