// Package price prices model usage in US dollars from a table of published
// rates: an embedded JSON (prices.json, with its source and date) that
// <state dir>/prices.json may override model by model. It is the one place
// the bridge turns tokens into dollars, for the streams, the menu bar and
// the usage command alike.
package price

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"

	"conductorbridge/bridge/regular"
)

//go:embed prices.json
var embedded []byte

// FileName is the override's name in the state dir.
const FileName = "prices.json"

// Rates are one model's prices in US dollars per million tokens.
type Rates struct {
	Input        float64 `json:"input"`
	Output       float64 `json:"output"`
	CacheWrite5m float64 `json:"cache_write_5m"`
	CacheWrite1h float64 `json:"cache_write_1h"`
	CacheRead    float64 `json:"cache_read"`
}

// Model is a model's price: its standard rates, and the rates of the tiers
// it has. LongContext applies to a request whose whole input (fresh,
// cache writes and reads) exceeds the table's threshold; Fast to a
// request made in fast mode.
type Model struct {
	Rates
	LongContext *Rates `json:"long_context,omitempty"`
	Fast        *Rates `json:"fast,omitempty"`
	// LongContextThreshold, when set, is this model's own threshold
	// (Haiku 5.5 bills prompts over 100k at its higher rates).
	LongContextThreshold int64 `json:"long_context_threshold,omitempty"`
}

// Table is a parsed price table. It is safe for concurrent use.
type Table struct {
	Source               string             `json:"source"`
	Date                 string             `json:"date"`
	Unit                 string             `json:"unit,omitempty"`
	LongContextThreshold int64              `json:"long_context_threshold"`
	ServerTools          map[string]float64 `json:"server_tools"` // usage.server_tool_use field → USD per request
	Models               map[string]Model   `json:"models"`
	Aliases              map[string]string  `json:"aliases,omitempty"` // normalised name → a key of Models

	// OnUnknown, when set, hears of each model the table cannot price,
	// once per model for the table's lifetime (the bridge logs it).
	OnUnknown func(model string)
	unknown   sync.Map
}

// Embedded returns a fresh copy of the built-in table.
func Embedded() *Table {
	t, err := Parse(embedded)
	if err != nil {
		panic(fmt.Sprintf("embedded price table: %v", err)) // caught by the package's tests
	}
	return t
}

// Parse reads a table in prices.json's format.
func Parse(b []byte) (*Table, error) {
	var t Table
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("parse price table: %w", err)
	}
	if len(t.Models) == 0 {
		return nil, errors.New("parse price table: no models")
	}
	return &t, nil
}

// Load returns the embedded table with <stateDir>/prices.json laid over
// it: a model there replaces the built-in entry of the same (normalised)
// name, new models and aliases are added, and its source and date, when
// given, replace the built-in ones. A missing file is no error.
func Load(stateDir string) (*Table, error) {
	t := Embedded()
	if stateDir == "" {
		return t, nil
	}
	path := filepath.Join(stateDir, FileName)
	b, err := regular.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return t, fmt.Errorf("read %s: %w", path, err)
	}
	var over Table
	if err := json.Unmarshal(b, &over); err != nil {
		return t, fmt.Errorf("parse %s: %w", path, err)
	}
	for name, m := range over.Models {
		t.Models[Normalize(name)] = m
	}
	for from, to := range over.Aliases {
		if t.Aliases == nil {
			t.Aliases = map[string]string{}
		}
		t.Aliases[Normalize(from)] = Normalize(to)
	}
	for tool, usd := range over.ServerTools {
		t.ServerTools[tool] = usd
	}
	if over.Source != "" {
		t.Source = over.Source
	}
	if over.Date != "" {
		t.Date = over.Date
	}
	if over.LongContextThreshold > 0 {
		t.LongContextThreshold = over.LongContextThreshold
	}
	return t, nil
}

// Lookup returns a model's price and whether the table has one. Names
// are normalised first (Normalize); nothing is guessed from a family
// name: a model the table does not list is unknown.
func (t *Table) Lookup(model string) (Model, bool) {
	n := Normalize(model)
	m, ok := t.Models[n]
	if !ok {
		if to, alias := t.Aliases[n]; alias {
			m, ok = t.Models[to]
		}
	}
	if !ok && t.OnUnknown != nil {
		if _, seen := t.unknown.LoadOrStore(n, true); !seen {
			t.OnUnknown(model)
		}
	}
	return m, ok
}

// Default is the built-in table, parsed once and shared by every parser
// that was given no table of its own. It reports unknown models nowhere;
// the bridge gives its parsers a Load-ed table that logs them.
var Default = sync.OnceValue(Embedded)
