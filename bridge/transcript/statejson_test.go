package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"math"
	"reflect"
	"testing"
	"time"

	"conductorbridge/bridge/event"
)

// fill sets every field reachable from v (structs, pointers, slices and
// maps of them) from seed: a field added to the state and not to the
// hand-written encoder shows in the comparison with encoding/json.
func fill(v reflect.Value, seed string, n *int) {
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("%s%d", seed, *n))
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(*n) * 1001)
	case reflect.Float64:
		v.SetFloat(float64(*n) + 0.125)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), seed, n)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range v.Len() {
			fill(v.Index(i), seed, n)
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		for i := range 3 {
			k := reflect.New(v.Type().Key()).Elem()
			k.SetString(fmt.Sprintf("%s-key%d", seed, 3-i)) // inserted out of order
			e := reflect.New(v.Type().Elem()).Elem()
			fill(e, seed, n)
			v.SetMapIndex(k, e)
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			v.Set(reflect.ValueOf(time.Date(2026, 12, 4, 3, 4, 5, *n*1000, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), seed, n)
			}
		}
	default:
		panic("fill: no case for " + v.Kind().String())
	}
}

func fullState(seed string) State {
	var s State
	n := 0
	fill(reflect.ValueOf(&s).Elem(), seed, &n)
	return s
}

// TestStateEncoderIsJSON: the state's hand-written encoder writes exactly
// what encoding/json does, for every field set, none set, and the
// strings, numbers and times encoding/json treats specially.
func TestStateEncoderIsJSON(t *testing.T) {
	odd := "a<b>&c \"q\" \\ \n\r\t\b\f \x01 \x7f é 日本 \u2028\u2029 \xff\xfe end"
	floats := fullState("f")
	floats.Turn.Sum.Cost, floats.Turn.Sum.SubCost = 1e-7, 1e21
	floats.Carry.Cost, floats.Carry.SubCost = 0.1+0.2, -123456789.000123
	zoned := fullState("z")
	zoned.EndedAt = time.Date(2025, 1, 2, 3, 4, 5, 0, time.FixedZone("JST", 9*3600))
	empty := State{Tools: map[string]string{}, Recent: []counted{}, Turn: &Turn{Usage: map[string]event.Usage{}}, Carry: &Totals{Unknown: []string{}}}
	zeroSub := fullState("s")
	zeroSub.Turn.Sum.SubUsage = event.Usage{}
	tests := []struct {
		name string
		s    State
	}{
		{"every field", fullState("x-")},
		{"odd strings", fullState(odd)},
		{"floats near the exponent form", floats},
		{"a zone", zoned},
		{"nothing set", State{}},
		{"empty maps and slices", empty},
		{"a zero subagent usage", zeroSub},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := appendState(nil, &tt.s)
			if !ok {
				t.Fatal("the hand-written encoder gave up")
			}
			want, err := json.Marshal(tt.s)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("by hand:\n%s\nencoding/json:\n%s", got, want)
			}
		})
	}
}

// What encoding/json refuses, the encoder gives up on, and Save then
// returns encoding/json's error rather than a journal it cannot read.
func TestStateEncoderRefusesWhatJSONCannotHold(t *testing.T) {
	for name, s := range map[string]State{
		"NaN":        {Carry: &Totals{Cost: math.NaN()}},
		"infinity":   {Turn: &Turn{Sum: Totals{SubCost: math.Inf(1)}}},
		"year 12026": {EndedAt: time.Date(12026, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		if _, ok := appendState(nil, &s); ok {
			t.Errorf("%s: encoded by hand; encoding/json refuses it", name)
		}
		p := Parser{State: s}
		if _, err := p.Save(); err == nil {
			t.Errorf("%s: Save gave no error", name)
		}
	}
}

// A saved state reads back as itself.
func TestSavedStateRoundTrips(t *testing.T) {
	p := Parser{State: fullState("r")}
	raw, err := p.Save()
	if err != nil {
		t.Fatal(err)
	}
	var back State
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, p.State) {
		t.Errorf("read back %+v, want %+v", back, p.State)
	}
}

// perturb changes the k-th leaf reachable from v (a string, number,
// bool, time, or a map: one entry more), counting down k; it reports
// whether it did.
func perturb(v reflect.Value, k *int) bool {
	switch v.Kind() {
	case reflect.String, reflect.Int, reflect.Int64, reflect.Float64, reflect.Bool, reflect.Map:
		if *k--; *k >= 0 {
			return false
		}
		switch v.Kind() {
		case reflect.String:
			v.SetString(v.String() + "!")
		case reflect.Int, reflect.Int64:
			v.SetInt(v.Int() + 1)
		case reflect.Float64:
			v.SetFloat(v.Float() + 0.5)
		case reflect.Bool:
			v.SetBool(!v.Bool())
		case reflect.Map:
			e := reflect.New(v.Type().Elem()).Elem()
			n := 0
			fill(e, "more", &n)
			v.SetMapIndex(reflect.ValueOf("a-new-key"), e)
		}
		return true
	case reflect.Pointer:
		return !v.IsNil() && perturb(v.Elem(), k)
	case reflect.Slice:
		for i := range v.Len() {
			if perturb(v.Index(i), k) {
				return true
			}
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			if *k--; *k >= 0 {
				return false
			}
			t := v.Interface().(time.Time)
			v.Set(reflect.ValueOf(t.In(time.FixedZone("JST", 9*3600)))) // the same instant, said in another zone
			return true
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && perturb(v.Field(i), k) {
				return true
			}
		}
	}
	return false
}

// TestHashStateFollowsSave: the engine asks HashState, not Save, whether
// a parser's state changed; the two must agree. For each field reachable
// in the state changed alone (a time said in another zone too), the hash
// changes exactly when Save's bytes do, and two states Saved alike hash
// alike.
func TestHashStateFollowsSave(t *testing.T) {
	seed := maphash.MakeSeed()
	sum := func(s State) (string, uint64) {
		p := &Parser{State: s}
		raw, err := p.Save()
		if err != nil {
			t.Fatal(err)
		}
		var h maphash.Hash
		h.SetSeed(seed)
		p.HashState(&h)
		return string(raw), h.Sum64()
	}
	base, baseHash := sum(fullState("x-"))
	if _, again := sum(fullState("x-")); again != baseHash {
		t.Fatal("one state hashed twice hashes differently")
	}
	if _, empty := sum(State{}); empty == baseHash {
		t.Fatal("the full state hashes as the empty one")
	}
	leaves := 0
	for k := 0; ; k++ {
		s := fullState("x-")
		left := k
		if !perturb(reflect.ValueOf(&s).Elem(), &left) {
			break
		}
		leaves++
		raw, h := sum(s)
		if (raw != base) != (h != baseHash) {
			t.Errorf("leaf %d: Save changed %v, the hash changed %v\n%s", k, raw != base, h != baseHash, raw)
		}
	}
	if leaves < 40 {
		t.Fatalf("only %d leaves perturbed: the walk missed the state's fields", leaves)
	}
}
