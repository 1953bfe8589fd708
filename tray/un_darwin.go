package tray

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ebitengine/purego"
	"github.com/ebitengine/purego/objc"
)

// unCenter posts notifications through UNUserNotificationCenter, the API
// macOS delivers for an app bundle (NSUserNotificationCenter, which beeep
// uses, is deprecated, and recent macOS drops a bundle's legacy posts
// silently). It is called through the Objective-C runtime with
// purego/objc, as beeep does, so it needs no cgo and is type-checked by
// every darwin build. It only works inside an app bundle: outside one,
// +currentNotificationCenter raises an Objective-C exception, which would
// end the process, so newUNCenter checks the bundle first.
//
// Facts from Apple's documentation of UserNotifications (not open source;
// not verifiable without a Mac): UNAuthorizationStatus NotDetermined 0,
// Denied 1, Authorized 2, Provisional 3; UNAuthorizationOptionSound 1<<1,
// UNAuthorizationOptionAlert 1<<2; completion handlers run on a background
// queue.
type unCenter struct {
	center objc.ID
	ask    sync.Once // authorization is requested once, on first need
	asked  bool      // the answer to that one request
}

// UNAuthorizationStatus values.
const (
	unNotDetermined = 0
	unDenied        = 1
	unAuthorized    = 2
	unProvisional   = 3
)

const (
	unOptionSound = 1 << 1
	unOptionAlert = 1 << 2
	// unWait bounds a call whose answer comes through a completion
	// handler; unAskWait, the wait for the person's answer to the prompt.
	unWait    = 5 * time.Second
	unAskWait = 2 * time.Minute
)

var errNotInBundle = errors.New("not running from an app bundle")

func sel(name string) objc.SEL { return objc.RegisterName(name) }

// newUNCenter returns the notification center of the app bundle this
// process runs from, or errNotInBundle.
func newUNCenter() (*unCenter, error) {
	for _, fw := range []string{"Foundation", "UserNotifications"} {
		if _, err := purego.Dlopen("/System/Library/Frameworks/"+fw+".framework/"+fw, purego.RTLD_GLOBAL|purego.RTLD_LAZY); err != nil {
			return nil, fmt.Errorf("load %s: %w", fw, err)
		}
	}
	var center objc.ID
	err := withPool(func() error {
		bundle := objc.ID(objc.GetClass("NSBundle")).Send(sel("mainBundle"))
		if bundle == 0 || bundle.Send(sel("bundleIdentifier")) == 0 {
			return errNotInBundle
		}
		path := goString(bundle.Send(sel("bundlePath")))
		if filepath.Ext(path) != ".app" {
			return fmt.Errorf("%w (%s)", errNotInBundle, path)
		}
		center = objc.ID(objc.GetClass("UNUserNotificationCenter")).Send(sel("currentNotificationCenter"))
		if center == 0 {
			return errors.New("no UNUserNotificationCenter")
		}
		center.Send(sel("retain"))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &unCenter{center: center}, nil
}

// status asks for the app's authorization (getNotificationSettings…).
func (c *unCenter) status() (int, error) {
	got := make(chan int, 1)
	block := objc.NewBlock(func(_ objc.Block, settings objc.ID) {
		got <- objc.Send[int](settings, sel("authorizationStatus"))
	})
	defer block.Release()
	withPool(func() error {
		c.center.Send(sel("getNotificationSettingsWithCompletionHandler:"), block)
		return nil
	})
	select {
	case st := <-got:
		return st, nil
	case <-time.After(unWait):
		return 0, errors.New("the notification settings did not come")
	}
}

// requestAuthorization asks the person, once: macOS shows its prompt the
// first time and answers from the setting afterwards.
func (c *unCenter) requestAuthorization() bool {
	c.ask.Do(func() {
		got := make(chan bool, 1)
		block := objc.NewBlock(func(_ objc.Block, granted bool, _ objc.ID) { got <- granted })
		defer block.Release()
		withPool(func() error {
			c.center.Send(sel("requestAuthorizationWithOptions:completionHandler:"), uint(unOptionAlert|unOptionSound), block)
			return nil
		})
		select {
		case c.asked = <-got:
		case <-time.After(unAskWait):
		}
	})
	return c.asked
}

// Notify posts one notification, asking for authorization first if it
// was never asked. Turned off in System Settings, it says so and where.
func (c *unCenter) Notify(title, body string) error {
	st, err := c.status()
	if err != nil {
		return err
	}
	switch st {
	case unDenied:
		return errNotificationsDenied
	case unNotDetermined:
		if !c.requestAuthorization() {
			return errNotificationsDenied
		}
	}
	return c.post(title, body)
}

func (c *unCenter) post(title, body string) error {
	got := make(chan string, 1)
	block := objc.NewBlock(func(_ objc.Block, nserr objc.ID) {
		if nserr == 0 {
			got <- ""
			return
		}
		got <- goString(nserr.Send(sel("localizedDescription")))
	})
	defer block.Release()
	err := withPool(func() error {
		content := objc.ID(objc.GetClass("UNMutableNotificationContent")).Send(sel("new"))
		if content == 0 {
			return errors.New("no UNMutableNotificationContent")
		}
		defer content.Send(sel("release"))
		content.Send(sel("setTitle:"), nsString(title))
		content.Send(sel("setBody:"), nsString(body))
		id := nsString("conductor-bridge-" + strconv.FormatInt(time.Now().UnixNano(), 10))
		req := objc.ID(objc.GetClass("UNNotificationRequest")).Send(sel("requestWithIdentifier:content:trigger:"), id, content, objc.ID(0))
		if req == 0 {
			return errors.New("no UNNotificationRequest")
		}
		c.center.Send(sel("addNotificationRequest:withCompletionHandler:"), req, block)
		return nil
	})
	if err != nil {
		return err
	}
	select {
	case msg := <-got:
		if msg != "" {
			return fmt.Errorf("notification not posted: %s", msg)
		}
		return nil
	case <-time.After(unWait):
		return errors.New("notification not confirmed by Notification Center")
	}
}

// state is doctor's reading of the authorization.
func (c *unCenter) state() (string, error) {
	st, err := c.status()
	if err != nil {
		return "", err
	}
	switch st {
	case unAuthorized:
		return "allowed (" + settingsPath + ")", nil
	case unProvisional:
		return "delivered quietly to Notification Center (provisional); for banners: " + settingsPath, nil
	case unNotDetermined:
		return "not asked yet: Conductor Bridge asks the first time it has something to show", nil
	case unDenied:
		return "", errNotificationsDenied
	}
	return "", fmt.Errorf("unknown authorization status %d", st)
}

// withPool runs fn on one OS thread inside an autorelease pool: the
// objects the calls autorelease are freed when it returns.
func withPool(fn func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	pool := objc.ID(objc.GetClass("NSAutoreleasePool")).Send(sel("new"))
	defer pool.Send(sel("drain"))
	return fn()
}

func nsString(s string) objc.ID {
	return objc.ID(objc.GetClass("NSString")).Send(sel("stringWithUTF8String:"), strings.ToValidUTF8(s, "\uFFFD"))
}

func goString(nsstr objc.ID) string {
	if nsstr == 0 {
		return ""
	}
	return objc.Send[string](nsstr, sel("UTF8String"))
}
