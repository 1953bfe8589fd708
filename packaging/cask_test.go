package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// checkCask checks a written cask twice: structurally in Go (always), and
// with Ruby (when there is one; under CI=true there must be): `ruby -c`
// for syntax, then evaluating it against a stand-in for Homebrew's DSL to
// read back the values Homebrew would see, url interpolation included.
func checkCask(t *testing.T, path, version, sum, repo string) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	checkCaskStructure(t, string(src), version, sum, repo)

	ruby, err := exec.LookPath("ruby")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("ruby is not installed (apt-get install ruby): CI checks the cask with it")
		}
		t.Log("no ruby: cask checked structurally only")
		return
	}
	if out, err := exec.Command(ruby, "-c", path).CombinedOutput(); err != nil {
		t.Fatalf("ruby -c %s: %v\n%s", path, err, out)
	}
	checkCaskValues(t, ruby, path, version, sum, repo)
}

// checkCaskStructure: the cask block, each stanza's line, balanced do/end.
func checkCaskStructure(t *testing.T, src, version, sum, repo string) {
	t.Helper()
	for _, want := range []string{
		"\ncask \"conductor-bridge\" do\n",
		"\n  version \"" + version + "\"\n",
		"\n  sha256 \"" + sum + "\"\n",
		"\n  url \"https://github.com/" + repo + "/releases/download/v#{version}/Conductor-Bridge-#{version}.zip\"\n",
		"\n  app \"Conductor Bridge.app\"\n",
		"\n  uninstall launchctl: \"com.conductor-bridge.agent\",",
		"\n  zap trash: [\n",
		"\"~/Library/Application Support/Conductor Bridge\",",
		"\"~/Library/Logs/Conductor Bridge\",",
		"\"~/Library/LaunchAgents/com.conductor-bridge.agent.plist\",",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("cask lacks %q", want)
		}
	}
	if !regexp.MustCompile(`\n  sha256 "[0-9a-f]{64}"\n`).MatchString(src) {
		t.Error("cask sha256 is not 64 hex digits")
	}
	if !strings.HasSuffix(src, "\nend\n") {
		t.Error("cask does not end with the block's end")
	}
	// do/end balance, outside the heredoc.
	depth, inHeredoc := 0, false
	for _, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case inHeredoc:
			inHeredoc = trimmed != "EOS"
		case strings.HasSuffix(trimmed, "<<~EOS"):
			inHeredoc = true
		case strings.HasSuffix(trimmed, " do"):
			depth++
		case trimmed == "end":
			depth--
		}
		if depth < 0 {
			t.Fatal("cask: end without do")
		}
	}
	if depth != 0 || inHeredoc {
		t.Errorf("cask: %d unclosed do blocks, heredoc open %v", depth, inHeredoc)
	}
}

// caskDSL stands in for Homebrew: each stanza records its arguments.
const caskDSL = `
require "json"

class Stanzas
  attr_reader :calls

  def initialize
    @calls = {}
  end

  def appdir
    "/Applications"
  end

  def version(v = nil)
    return @calls["version"][0] if v.nil?
    @calls["version"] = [v]
  end

  def method_missing(name, *args, **kw, &block)
    @calls[name.to_s] = kw.empty? ? args : args + [kw]
  end

  def respond_to_missing?(*)
    true
  end
end

def cask(token, &block)
  s = Stanzas.new
  s.instance_eval(&block)
  puts JSON.generate({ "token" => token, "calls" => s.calls })
end

load ARGV[0]
`

// checkCaskValues evaluates the cask and compares every stanza's value.
func checkCaskValues(t *testing.T, ruby, path, version, sum, repo string) {
	t.Helper()
	dsl := filepath.Join(t.TempDir(), "dsl.rb")
	if err := os.WriteFile(dsl, []byte(caskDSL), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(ruby, dsl, path).Output()
	if err != nil {
		t.Fatalf("evaluate the cask: %v\n%s", err, out)
	}
	var got struct {
		Token string
		Calls map[string][]any
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.Token != "conductor-bridge" {
		t.Errorf("token %q", got.Token)
	}
	caveats := got.Calls["caveats"]
	want := map[string][]any{
		"version":    {version},
		"sha256":     {sum},
		"url":        {"https://github.com/" + repo + "/releases/download/v" + version + "/Conductor-Bridge-" + version + ".zip"},
		"name":       {"Conductor Bridge"},
		"desc":       got.Calls["desc"],
		"homepage":   {"https://github.com/" + repo},
		"livecheck":  {},
		"depends_on": {map[string]any{"macos": ">= :monterey"}},
		"app":        {"Conductor Bridge.app"},
		"binary":     {"/Applications/Conductor Bridge.app/Contents/MacOS/conductor-bridge"},
		"uninstall":  {map[string]any{"launchctl": "com.conductor-bridge.agent", "quit": "com.conductor-bridge.app"}},
		"zap": {map[string]any{"trash": []any{
			"~/Library/Application Support/Conductor Bridge",
			"~/Library/Logs/Conductor Bridge",
			"~/Library/LaunchAgents/com.conductor-bridge.agent.plist",
		}}},
		"caveats": caveats,
	}
	if !reflect.DeepEqual(got.Calls, want) {
		t.Errorf("cask stanzas:\n got %#v\nwant %#v", got.Calls, want)
	}
	if len(caveats) != 1 || !strings.Contains(caveats[0].(string), "conductor-bridge hooks uninstall") {
		t.Errorf("caveats = %v", caveats)
	}
	if d := got.Calls["desc"]; len(d) != 1 || d[0] == "" {
		t.Errorf("desc = %v", d)
	}
}
