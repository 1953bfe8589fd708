package main

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"conductorbridge/testkit/browsertest"
)

// The README's picture, docs/side-panel.png: the real side panel in a real
// Chromium (installed and signed in as a person does it), following a
// turn of the paired workspace, beside the page the agent works on. The
// test always takes it; it replaces the file in the repository only with
// CB_UPDATE_SCREENSHOT=1, and otherwise checks that the file is there and
// has the picture's size.
const screenshotFile = "../docs/side-panel.png"

const shopPage = `<!doctype html><html><head><meta charset="utf-8"><title>shop — login</title>
<style>body{font:15px/1.5 -apple-system,"Segoe UI",sans-serif;margin:0;background:#f6f6f8;color:#1d1d1f}
header{background:#1d1d1f;color:#fff;padding:14px 24px;font-weight:600}main{display:flex;justify-content:center;padding:60px 20px}
form{background:#fff;border-radius:12px;box-shadow:0 2px 12px #0001;padding:28px;width:min(420px,100%)}
h1{font-size:22px;margin:0 0 18px}label{display:block;margin:12px 0 4px;color:#6e6e73;font-size:13px}
input{width:100%;box-sizing:border-box;padding:9px 10px;border:1px solid #d2d2d7;border-radius:8px;font:inherit}
button{margin-top:20px;width:100%;padding:10px;border:0;border-radius:8px;background:#0a66d8;color:#fff;font:inherit;font-weight:600}</style></head>
<body><header>shop</header><main><form><h1>Sign in</h1><label>Email</label><input value="ada@example.com">
<label>Password</label><input type="password" value="secret"><button type="button">Sign in</button></form></main></body></html>`

func TestSidePanelScreenshot(t *testing.T) {
	chrome := browsertest.Find(t)
	e := openPanel(t, chrome, newTwoWorkspaces(t))
	e.cli("pair", "tokyo")
	w := e.tokyo
	w.prompt("Check the mobile layout of the login page")
	w.assistant(nil, map[string]any{"type": "thinking", "thinking": "The form's width is fixed; on a phone it overflows.", "signature": "s"})
	w.tool("Read", map[string]any{"file_path": "src/login.css"}, ".login { width: 420px; }", false)
	w.assistant(nil, map[string]any{"type": "text", "text": "The login form has a fixed width of 420px, so it overflows on phones. I'll make it fluid."})
	w.tool("Edit", map[string]any{"file_path": "src/login.css", "old_string": "width: 420px;", "new_string": "width: min(420px, 100%);"}, "The file src/login.css has been updated.", false)
	w.tool("Bash", map[string]any{"command": "npm test -- login", "description": "Run the login tests"}, "✓ tests/login.spec.ts (5 tests) 63ms\n\nTests  5 passed (5)", false)
	w.assistant("end_turn", map[string]any{"type": "text", "text": "The login form now shrinks to the screen's width on phones; its tests pass."})
	e.poll("the turn in the panel", `[...document.querySelectorAll('#log .bubble.claude')].some(n => n.textContent.startsWith('The login form now shrinks')) && document.querySelector('#log .turn') !== null`)
	panel, err := chromedp.Run(e.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(shopPage))
	}))
	defer srv.Close()
	pageCtx := browsertest.New(t, chrome)
	if err := chromedp.Do(pageCtx, chromedp.EmulateViewport(900, 760), chromedp.Navigate(srv.URL)); err != nil {
		t.Fatal(err)
	}
	page, err := chromedp.Run(pageCtx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	pic := sideBySide(t, page, panel)
	art := filepath.Join(t.ArtifactDir(), "side-panel.png")
	os.WriteFile(art, pic, 0o644)
	if os.Getenv("CB_UPDATE_SCREENSHOT") == "1" {
		if err := os.WriteFile(screenshotFile, pic, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", screenshotFile)
		return
	}
	kept, err := os.ReadFile(screenshotFile)
	if err != nil {
		t.Fatalf("README's picture: %v (make it with CB_UPDATE_SCREENSHOT=1 go test -run TestSidePanelScreenshot ./app)", err)
	}
	a, _, err1 := image.DecodeConfig(bytes.NewReader(kept))
	b, _, err2 := image.DecodeConfig(bytes.NewReader(pic))
	if err1 != nil || err2 != nil || a.Width != b.Width || a.Height != b.Height {
		t.Errorf("%s is %dx%d (%v), the picture now %dx%d (%v): make it again with CB_UPDATE_SCREENSHOT=1 (this one: %s)",
			screenshotFile, a.Width, a.Height, err1, b.Width, b.Height, err2, art)
	}
}

// sideBySide puts the page and the panel next to each other, a line
// between them, as Chrome shows a side panel.
func sideBySide(t *testing.T, left, right []byte) []byte {
	t.Helper()
	l, err := png.Decode(bytes.NewReader(left))
	if err != nil {
		t.Fatal(err)
	}
	r, err := png.Decode(bytes.NewReader(right))
	if err != nil {
		t.Fatal(err)
	}
	h := max(l.Bounds().Dy(), r.Bounds().Dy())
	out := image.NewRGBA(image.Rect(0, 0, l.Bounds().Dx()+1+r.Bounds().Dx(), h))
	draw.Draw(out, out.Bounds(), &image.Uniform{color.RGBA{0xd2, 0xd2, 0xd7, 0xff}}, image.Point{}, draw.Src)
	draw.Draw(out, l.Bounds(), l, l.Bounds().Min, draw.Src)
	draw.Draw(out, r.Bounds().Add(image.Pt(l.Bounds().Dx()+1, 0)), r, r.Bounds().Min, draw.Src)
	var b bytes.Buffer
	if err := png.Encode(&b, out); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
