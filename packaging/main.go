// Command packaging builds Conductor Bridge's macOS app bundle, and
// optionally its zip and Homebrew cask. It is plain Go so that a test
// bundle can be made and checked on Linux CI; release.sh runs it on a Mac
// with the signed-to-be universal binary.
//
//	go run ./packaging -o dist -test-build              # test bundle, cgo-free arm64 binary
//	go run ./packaging -o dist -binary conductor-bridge  # bundle a binary built elsewhere
//	go run ./packaging -o dist -test-build -zip -cask dist/conductor-bridge.rb
//	go run ./packaging -cask-zip dist/Conductor-Bridge-1.2.0.zip -version 1.2.0 -cask dist/conductor-bridge.rb
//	go run ./packaging -extension dist/chrome-extension  # the side panel, unpacked and zipped
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
)

// Fixed facts about the app. The LaunchAgent label and the data folders
// must match what the app writes (app/service.go, bridge/paths), since the
// cask's uninstall and zap remove them.
const (
	appName       = "Conductor Bridge"
	bundleID      = "com.conductor-bridge.app"
	executable    = "conductor-bridge"
	agentLabel    = "com.conductor-bridge.agent"
	minimumMacOS  = "12.0"
	defaultRepo   = "conductor-bridge/conductor-bridge"
	caskToken     = "conductor-bridge"
	devVersion    = "0.0.0-dev"
	appBundleName = appName + ".app"
)

// options are the command line's.
type options struct {
	Out       string // directory the .app (and zip) go into
	Binary    string // darwin binary to bundle
	TestBuild bool   // without Binary: cross-build a cgo-free darwin/arm64 one
	Version   string // CFBundleShortVersionString; default from the git tag
	Build     string // CFBundleVersion; default the commit count
	Icon      string // a PNG to use instead of assets.AppIcon
	Zip       bool   // also zip the .app
	Cask      string // write the Homebrew cask here
	CaskZip   string // write the cask for this existing zip only, build nothing
	Repo      string // GitHub owner/name the release is downloaded from
	Root      string // module root (Info.plist.tmpl, ./app); default found from the working directory
	Extension string // write the Chrome side panel here (and a store zip beside it)
}

func main() {
	var o options
	fs := flag.NewFlagSet("packaging", flag.ExitOnError)
	fs.StringVar(&o.Out, "o", "", "output `dir` for \""+appBundleName+"\" (and the zip)")
	fs.StringVar(&o.Binary, "binary", "", "darwin `binary` to bundle (thin or universal Mach-O)")
	fs.BoolVar(&o.TestBuild, "test-build", false, "without -binary: cross-build a cgo-free darwin/arm64 binary from ./app (no menu bar; for tests)")
	fs.StringVar(&o.Version, "version", "", "version (default: the exact git tag without its v, else "+devVersion+")")
	fs.StringVar(&o.Build, "build", "", "build number, digits and dots (default: git rev-list --count HEAD)")
	fs.StringVar(&o.Icon, "icon", "", "1024×1024 PNG `file` for the app icon (default: the embedded assets.AppIcon)")
	fs.BoolVar(&o.Zip, "zip", false, "also zip the .app as Conductor-Bridge-<version>.zip in the -o dir")
	fs.StringVar(&o.Cask, "cask", "", "write the Homebrew cask to `file` (needs -zip or -cask-zip for its sha256)")
	fs.StringVar(&o.CaskZip, "cask-zip", "", "write only the cask, for this existing release `zip`; build no bundle")
	fs.StringVar(&o.Repo, "repo", defaultRepo, "GitHub `owner/name` whose releases host the zip")
	fs.StringVar(&o.Extension, "extension", "", "write the Chrome side panel unpacked into `dir`, and dir.zip for the Chrome Web Store")
	fs.StringVar(&o.Root, "root", "", "module root `dir` (default: found upwards from the working directory)")
	_ = fs.Parse(os.Args[1:])
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "packaging: unexpected arguments %q\n", fs.Args())
		fs.Usage()
		os.Exit(2)
	}
	if _, err := run(context.Background(), o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "packaging:", err)
		os.Exit(1)
	}
}

// result is what run made, for the log and the tests.
type result struct {
	App, Zip, SHA256, Cask string
	Version, Build         string
	Extension, ExtZip      string
}

// run does what the options ask and reports each artefact on log.
func run(ctx context.Context, o options, log io.Writer) (result, error) {
	var res result
	root := o.Root
	if root == "" {
		var err error
		if root, err = moduleRoot(); err != nil {
			return res, err
		}
	}
	v, err := resolveVersion(ctx, root, o.Version, o.Build)
	if err != nil {
		return res, err
	}
	res.Version, res.Build = v.Version, v.Build
	if err := checkRepo(o.Repo); err != nil {
		return res, err
	}

	if o.Extension != "" {
		zipPath, err := writeExtension(o.Extension, v.Version)
		if err != nil {
			return res, err
		}
		res.Extension, res.ExtZip = o.Extension, zipPath
		fmt.Fprintf(log, "extension: %s\nextension zip: %s\n", o.Extension, zipPath)
		if o.Out == "" && o.CaskZip == "" {
			return res, nil // only the extension was asked for
		}
	}

	if o.CaskZip != "" {
		if o.Cask == "" {
			return res, fmt.Errorf("-cask-zip needs -cask FILE")
		}
		if o.Zip || o.Binary != "" || o.TestBuild {
			return res, fmt.Errorf("-cask-zip only writes the cask: drop -zip, -binary and -test-build")
		}
		return res, writeCaskFor(o.CaskZip, o, v, &res, log)
	}

	if o.Out == "" {
		return res, fmt.Errorf("-o DIR is required")
	}
	if o.Cask != "" && !o.Zip {
		return res, fmt.Errorf("-cask needs the zip's sha256: add -zip (or use -cask-zip with an existing zip)")
	}
	app, err := buildBundle(ctx, root, o, v)
	if err != nil {
		return res, err
	}
	res.App = app
	fmt.Fprintln(log, "app:", app)

	if !o.Zip {
		return res, nil
	}
	zipPath, sum, err := zipApp(app, o.Out, v.Version)
	if err != nil {
		return res, err
	}
	res.Zip, res.SHA256 = zipPath, sum
	fmt.Fprintf(log, "zip: %s\nsha256: %s\n", zipPath, sum)
	if o.Cask != "" {
		return res, writeCaskFor(zipPath, o, v, &res, log)
	}
	return res, nil
}

// writeCaskFor writes the cask for a release zip.
func writeCaskFor(zipPath string, o options, v versionInfo, res *result, log io.Writer) error {
	sum, err := checkReleaseZip(zipPath, v.Version)
	if err != nil {
		return err
	}
	if err := writeCask(o.Cask, caskData{Version: v.Version, SHA256: sum, Repo: o.Repo}); err != nil {
		return err
	}
	res.Cask, res.SHA256 = o.Cask, sum
	fmt.Fprintln(log, "cask:", o.Cask)
	return nil
}
