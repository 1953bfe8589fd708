package proc

import (
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"conductorbridge/testkit/cctest"
)

// The oracle for the darwin code is testdata/darwin_proc.c: xnu's
// declarations of kinfo_proc and proc_vnodepathinfo transcribed and laid
// out by the machine's C compiler, and writers of kern.procargs2 and
// proc_vnodepathinfo answers that follow the kernel's own code. These
// tests run on every platform; nothing here builds an answer from the
// constants under test.

func darwinOracle(t *testing.T) string {
	t.Helper()
	return cctest.Build(t, filepath.Join("testdata", "darwin_proc.c"))
}

func TestVnodePathInfoLayoutMatchesXNU(t *testing.T) {
	cctest.Compare(t, cctest.Layout(t, darwinOracle(t)), map[string]int{
		"PROC_INFO_CALL_PIDINFO":               procInfoCallPIDInfo,
		"PROC_PIDVNODEPATHINFO":                procPIDVnodePathInfo,
		"sizeof(vnode_info)":                   vnodeInfoSize,
		"MAXPATHLEN":                           maxPathLen,
		"sizeof(proc_vnodepathinfo)":           procVnodePathInfoSize,
		"proc_vnodepathinfo.pvi_cdir.vip_path": vnodeInfoSize,
		"SZOMB":                                sZomb,
	})
}

func TestCwdFromXNUVnodePathInfo(t *testing.T) {
	exe := darwinOracle(t)
	long := "/Users/me/" + strings.Repeat("d", 1100) // longer than MAXPATHLEN: the kernel cuts it
	for _, tt := range []struct {
		name, cwd, root, want string
		wantErr               bool
	}{
		{"a worktree", "/Users/me/conductor/workspaces/app/tokyo", "/", "/Users/me/conductor/workspaces/app/tokyo", false},
		{"no root directory", "/private/tmp/x", "", "/private/tmp/x", false},
		{"spaces and UTF-8", "/Users/me/My Projects/café", "/", "/Users/me/My Projects/café", false},
		{"cut at MAXPATHLEN", long, "/", long[:1023], false},
		{"no directory", "", "/", "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			buf := cctest.Run(t, exe, "vnodepathinfo", tt.cwd, tt.root)
			got, err := cwdFromVnodePathInfo(buf, len(buf))
			if got != tt.want || (err != nil) != tt.wantErr {
				t.Errorf("= %q, %v; want %q (error %v)", got, err, tt.want, tt.wantErr)
			}
		})
	}
	buf := cctest.Run(t, exe, "vnodepathinfo", "/x", "/")
	if _, err := cwdFromVnodePathInfo(buf, vnodeInfoSize+10); err == nil {
		t.Error("a short answer was read")
	}
}

func TestParseXNUProcArgs2(t *testing.T) {
	exe := darwinOracle(t)
	for _, tt := range []struct {
		name string
		args []string // PATH -- ARG... -- ENV...
		want []string
	}{
		{"args then environment", []string{"/usr/local/bin/claude", "--", "claude", "--resume", "abc", "--", "HOME=/Users/me", "SECRET=x"},
			[]string{"claude", "--resume", "abc"}},
		{"a path needing no padding", []string{"/usr/bin/claude", "--", "claude", "-p", "--", "A=1"}, // 16+15+1 bytes: a multiple of 8
			[]string{"claude", "-p"}},
		{"environment omitted (another user's hardened process)", []string{"-noenv", "/bin/zsh", "--", "node", "cli.js", "--session-id", "5f0c", "--", "TOKEN=x"},
			[]string{"node", "cli.js", "--session-id", "5f0c"}},
		{"empty argument kept", []string{"/bin/x", "--", "x", "", "y", "--", "ENV=1"}, []string{"x", "", "y"}},
		{"no arguments", []string{"/bin/x", "--", "--", "HOME=/"}, []string{}},
		{"spaces and UTF-8", []string{"/Applications/Conductor.app/Contents/MacOS/bin/claude", "--", "claude", "fix the café page", "--", "LANG=fr"},
			[]string{"claude", "fix the café page"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseProcArgs(cctest.Run(t, exe, append([]string{"procargs2"}, tt.args...)...))
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("= %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestKinfoProcOfXSysMatchesXNU: List and Parent read struct kinfo_proc
// through golang.org/x/sys/unix (KinfoProc's Proc.P_pid, Proc.P_comm and
// Eproc.Ppid; SysctlKinfoProcSlice cuts kern.proc.all into
// SizeofKinfoProc pieces), and Cwd calls unix.SYS_PROC_INFO. x/sys
// generates those on a Mac with cgo -godefs; here its darwin/arm64 and
// darwin/amd64 files, laid out by go/types with the gc compiler's sizes,
// are compared with the C compiler's layout of xnu's declarations.
func TestKinfoProcOfXSysMatchesXNU(t *testing.T) {
	layout := cctest.Layout(t, darwinOracle(t))
	dir := xsysDir(t)
	for _, arch := range []string{"arm64", "amd64"} {
		t.Run(arch, func(t *testing.T) {
			sizes := types.SizesFor("gc", arch)
			scope := typecheck(t, sizes, filepath.Join(dir, "unix"), "ztypes_darwin_"+arch+".go", "zsysnum_darwin_"+arch+".go")
			kp := scope.Lookup("KinfoProc")
			if kp == nil {
				t.Fatal("no KinfoProc in x/sys")
			}
			got := map[string]int{
				"sizeof(kinfo_proc)":           int(sizes.Sizeof(kp.Type())),
				"kinfo_proc.kp_proc.p_pid":     offsetOf(t, sizes, kp.Type(), "Proc", "P_pid"),
				"kinfo_proc.kp_proc.p_comm":    offsetOf(t, sizes, kp.Type(), "Proc", "P_comm"),
				"kinfo_proc.kp_eproc":          offsetOf(t, sizes, kp.Type(), "Eproc"),
				"kinfo_proc.kp_eproc.e_ppid":   offsetOf(t, sizes, kp.Type(), "Eproc", "Ppid"),
				"sizeof(p_comm)":               sizeOf(t, sizes, kp.Type(), "Proc", "P_comm"),
				"SYS_proc_info":                constInt(t, scope, "SYS_PROC_INFO"),
				"sizeof(kinfo_proc) (x/sys's)": constInt(t, scope, "SizeofKinfoProc"),
			}
			layout := maps(layout, map[string]string{"sizeof(kinfo_proc) (x/sys's)": "sizeof(kinfo_proc)"})
			cctest.Compare(t, layout, got)
		})
	}
}

// maps returns layout with extra names standing for existing ones.
func maps(layout map[string]int, alias map[string]string) map[string]int {
	out := make(map[string]int, len(layout)+len(alias))
	for k, v := range layout {
		out[k] = v
	}
	for k, v := range alias {
		out[k] = layout[v]
	}
	return out
}

// xsysDir is where the golang.org/x/sys this module builds with lives.
func xsysDir(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "golang.org/x/sys").Output()
	if err != nil {
		t.Fatalf("go list -m golang.org/x/sys: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// typecheck type-checks the given files of package unix on their own.
// They refer to nothing outside themselves for the types checked here;
// errors about anything else are ignored.
func typecheck(t *testing.T, sizes types.Sizes, dir string, files ...string) *types.Scope {
	t.Helper()
	fset := token.NewFileSet()
	var parsed []*ast.File
	for _, f := range files {
		pf, err := parser.ParseFile(fset, filepath.Join(dir, f), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, pf)
	}
	conf := types.Config{Error: func(error) {}, Sizes: sizes}
	pkg, _ := conf.Check("golang.org/x/sys/unix", fset, parsed, nil)
	return pkg.Scope()
}

// field walks path from typ: the field's offset from the start of typ,
// and its type.
func field(t *testing.T, sizes types.Sizes, typ types.Type, path ...string) (int, types.Type) {
	t.Helper()
	off := 0
	for _, name := range path {
		st, ok := typ.Underlying().(*types.Struct)
		if !ok {
			t.Fatalf("%v is not a struct", typ)
		}
		i := fieldIndex(st, name)
		if i < 0 {
			t.Fatalf("%v has no field %s", typ, name)
		}
		fields := make([]*types.Var, st.NumFields())
		for j := range fields {
			fields[j] = st.Field(j)
		}
		off += int(sizes.Offsetsof(fields)[i])
		typ = st.Field(i).Type()
	}
	return off, typ
}

func offsetOf(t *testing.T, sizes types.Sizes, typ types.Type, path ...string) int {
	t.Helper()
	off, _ := field(t, sizes, typ, path...)
	return off
}

func sizeOf(t *testing.T, sizes types.Sizes, typ types.Type, path ...string) int {
	t.Helper()
	_, ft := field(t, sizes, typ, path...)
	return int(sizes.Sizeof(ft))
}

func fieldIndex(st *types.Struct, name string) int {
	for i := range st.NumFields() {
		if st.Field(i).Name() == name {
			return i
		}
	}
	return -1
}

func constInt(t *testing.T, scope *types.Scope, name string) int {
	t.Helper()
	c, ok := scope.Lookup(name).(*types.Const)
	if !ok {
		t.Fatalf("no constant %s", name)
	}
	v, ok := constant.Int64Val(c.Val())
	if !ok {
		t.Fatalf("%s is not an integer", name)
	}
	return int(v)
}
