package nativehost

import (
	"path/filepath"
)

// A Browser is one place a Chromium-family browser looks for this user's
// native messaging hosts.
type Browser struct {
	Name string
	// Profile is the browser's per-user folder; the host is installed for
	// the browser only when it exists (the browser ran here once).
	Profile string
	// Hosts is the folder the browser reads <HostName>.json from.
	Hosts string
}

// Manifest is where the browser reads this host's manifest.
func (b Browser) Manifest() string { return filepath.Join(b.Hosts, HostName+".json") }

// Browsers lists where Google Chrome, Chromium, Brave, Microsoft Edge and
// Arc read a user's native messaging hosts, for home on goos ("darwin" or
// "linux"; nothing elsewhere). env is os.Getenv, or a map in tests.
//
// The rule is Chromium's: a user's hosts live in "NativeMessagingHosts"
// inside the browser's user data folder (chrome/common/chrome_paths.cc,
// DIR_USER_NATIVE_MESSAGING = DIR_USER_DATA + "NativeMessagingHosts"), so
// each entry is a browser's default user data folder:
//   - Chrome and Chromium on Linux: $CHROME_CONFIG_HOME, else
//     $XDG_CONFIG_HOME, else ~/.config, then "google-chrome" or "chromium"
//     (chrome/common/chrome_paths_linux.cc, GetDefaultUserDataDirectory);
//     on macOS ~/Library/Application Support/ + "Google/Chrome" or
//     "Chromium" (chrome_paths_mac.mm, ProductDirName). The
//     native-messaging docs list the same four folders.
//   - Brave: "BraveSoftware/Brave-Browser" under $XDG_CONFIG_HOME (or
//     ~/.config) on Linux, brave-core's override of
//     GetDefaultUserDataDirectory, which ignores CHROME_CONFIG_HOME; under
//     ~/Library/Application Support on macOS (KeePassXC's
//     src/browser/NativeMessageInstaller.cpp writes the same two).
//   - Microsoft Edge: "microsoft-edge" under ~/.config on Linux,
//     "Microsoft Edge" under ~/Library/Application Support on macOS
//     (Microsoft's Edge native-messaging guide for macOS; KeePassXC's
//     installer for both).
//   - Arc (macOS only): its user data folder is
//     ~/Library/Application Support/Arc/User Data (arc://version's profile
//     path is ".../Arc/User Data/Default"), so by Chromium's rule it reads
//     "Arc/User Data/NativeMessagingHosts". Arc is also said to read
//     Chrome's folder; Arc's source is closed, so when Arc is there the host
//     goes into both. Neither is verified on a Mac here.
func Browsers(home, goos string, env func(string) string) []Browser {
	switch goos {
	case "darwin":
		support := filepath.Join(home, "Library", "Application Support")
		chrome := filepath.Join(support, "Google", "Chrome")
		arc := filepath.Join(support, "Arc", "User Data")
		return []Browser{
			inProfile("Google Chrome", chrome),
			inProfile("Chromium", filepath.Join(support, "Chromium")),
			inProfile("Brave", filepath.Join(support, "BraveSoftware", "Brave-Browser")),
			inProfile("Microsoft Edge", filepath.Join(support, "Microsoft Edge")),
			inProfile("Arc", arc),
			{Name: "Arc (Chrome's folder)", Profile: arc, Hosts: filepath.Join(chrome, "NativeMessagingHosts")},
		}
	case "linux":
		config := absEnv(env, "XDG_CONFIG_HOME", filepath.Join(home, ".config"))
		chromeConfig := absEnv(env, "CHROME_CONFIG_HOME", config)
		return []Browser{
			inProfile("Google Chrome", filepath.Join(chromeConfig, "google-chrome")),
			inProfile("Chromium", filepath.Join(chromeConfig, "chromium")),
			inProfile("Brave", filepath.Join(config, "BraveSoftware", "Brave-Browser")),
			inProfile("Microsoft Edge", filepath.Join(config, "microsoft-edge")),
		}
	}
	return nil
}

func inProfile(name, profile string) Browser {
	return Browser{Name: name, Profile: profile, Hosts: filepath.Join(profile, "NativeMessagingHosts")}
}

// absEnv is the variable's value when it is an absolute path (the XDG spec
// says to ignore relative ones), else def.
func absEnv(env func(string) string, name, def string) string {
	if v := env(name); v != "" && filepath.IsAbs(v) {
		return v
	}
	return def
}
