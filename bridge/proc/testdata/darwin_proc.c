/*
 * The oracle for bridge/proc on macOS: what the kernel hands back for
 * kern.proc.* (struct kinfo_proc), kern.procargs2 and proc_pidinfo
 * PROC_PIDVNODEPATHINFO (struct proc_vnodepathinfo), laid out by a C
 * compiler and written as the kernel writes them.
 *
 * Transcribed (types, order; none of these is under #pragma pack) from
 * Apple's xnu, tag xnu-11417.101.15 (commit
 * e3723e1f17661b24996789d8afc084c0c3303b26, github.com/apple-oss-distributions/xnu):
 *   bsd/sys/_types.h, bsd/sys/_types/_*.h, bsd/sys/types.h, bsd/arm/_types.h
 *                              the base types (dev_t, pid_t, segsz_t, fixpt_t…)
 *   osfmk/mach/arm/boolean.h   boolean_t (int; i386's is unsigned int: same size)
 *   bsd/sys/_types/_timeval.h, bsd/sys/time.h     timeval, itimerval
 *   bsd/sys/vm.h               struct vmspace as userland sees it
 *   bsd/sys/proc.h             struct extern_proc
 *   bsd/sys/sysctl.h           struct _pcred, _ucred, kinfo_proc (eproc)
 *   bsd/sys/param.h, syslimits.h   MAXCOMLEN 16, NGROUPS 16, MAXPATHLEN 1024
 *   bsd/sys/proc_info.h        vinfo_stat, vnode_info, vnode_info_path,
 *                              proc_vnodepathinfo, PROC_PIDVNODEPATHINFO 9
 *   bsd/sys/proc_info_private.h    PROC_INFO_CALL_PIDINFO 2
 *   bsd/kern/syscalls.master   proc_info is syscall 336
 *
 * kern.procargs2 (bsd/kern/kern_sysctl.c sysctl_procargsx with argc_yes)
 * is the int argc, then the top of the process's stack from just past
 * the "executable_path=" prefix: the executable's path and its NUL, NULs
 * up to pointer alignment (bsd/kern/kern_exec.c exec_extract_strings pads
 * the path so the strings area stays a multiple of 8), the argc argument
 * strings, the environment strings, NULs to the next multiple of 8, then
 * the "apple" strings. For another user's hardened process the kernel
 * stops after the arguments (omit_env_vars).
 *
 *   darwin_proc layout
 *       prints "name value" lines: sizes, offsets and constants.
 *   darwin_proc procargs2 [-noenv] PATH -- ARG... -- ENV...
 *       writes a kern.procargs2 answer to stdout.
 *   darwin_proc vnodepathinfo CWD ROOT
 *       writes a proc_vnodepathinfo to stdout, as proc_pidvnodepathinfo
 *       fills it (zeroed, then each path copied and NUL-ended).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(long) == 8 && sizeof(void *) == 8 && sizeof(int) == 4, "an LP64 target");

typedef unsigned char u_char;
typedef unsigned short u_short;
typedef unsigned int u_int;
typedef unsigned int u_int32_t;
typedef unsigned long long u_int64_t;
typedef u_int64_t u_quad_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef unsigned short uint16_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
typedef int __int32_t;
typedef unsigned int __uint32_t;
typedef __int32_t pid_t;      /* __darwin_pid_t */
typedef __uint32_t uid_t;     /* __darwin_uid_t */
typedef __uint32_t gid_t;     /* __darwin_gid_t */
typedef __int32_t dev_t;      /* __darwin_dev_t */
typedef __uint32_t sigset_t;  /* __darwin_sigset_t */
typedef long long off_t;      /* __darwin_off_t, __int64_t */
typedef char *caddr_t;
typedef int32_t segsz_t;
typedef u_int32_t fixpt_t;
typedef int boolean_t;
typedef long __darwin_time_t;
typedef __int32_t __darwin_suseconds_t;

#define MAXCOMLEN 16
#define NGROUPS 16
#define MAXPATHLEN 1024

struct timeval {
	__darwin_time_t tv_sec;
	__darwin_suseconds_t tv_usec;
};

struct itimerval {
	struct timeval it_interval;
	struct timeval it_value;
};

/* bsd/sys/vm.h, !BSD_KERNEL_PRIVATE: "just to keep kinfo_proc happy" */
struct vmspace {
	int32_t dummy;
	caddr_t dummy2;
	int32_t dummy3[5];
	caddr_t dummy4[3];
};

struct proc;
struct sigacts;
struct vnode;
struct pgrp;
struct user;
struct rusage;
struct session;
struct ucred;

/* bsd/sys/proc.h */
struct extern_proc {
	union {
		struct {
			struct proc *__p_forw;
			struct proc *__p_back;
		} p_st1;
		struct timeval __p_starttime;
	} p_un;
	struct vmspace *p_vmspace;
	struct sigacts *p_sigacts;
	int p_flag;
	char p_stat;
	pid_t p_pid;
	pid_t p_oppid;
	int p_dupfd;
	caddr_t user_stack;
	void *exit_thread;
	int p_debugger;
	boolean_t sigwait;
	u_int p_estcpu;
	int p_cpticks;
	fixpt_t p_pctcpu;
	void *p_wchan;
	char *p_wmesg;
	u_int p_swtime;
	u_int p_slptime;
	struct itimerval p_realtimer;
	struct timeval p_rtime;
	u_quad_t p_uticks;
	u_quad_t p_sticks;
	u_quad_t p_iticks;
	int p_traceflag;
	struct vnode *p_tracep;
	int p_siglist;
	struct vnode *p_textvp;
	int p_holdcnt;
	sigset_t p_sigmask;
	sigset_t p_sigignore;
	sigset_t p_sigcatch;
	u_char p_priority;
	u_char p_usrpri;
	char p_nice;
	char p_comm[MAXCOMLEN + 1];
	struct pgrp *p_pgrp;
	struct user *p_addr;
	u_short p_xstat;
	u_short p_acflag;
	struct rusage *p_ru;
};

/* bsd/sys/sysctl.h */
struct _pcred {
	char pc_lock[72];
	struct ucred *pc_ucred;
	uid_t p_ruid;
	uid_t p_svuid;
	gid_t p_rgid;
	gid_t p_svgid;
	int p_refcnt;
};

struct _ucred {
	int32_t cr_ref;
	uid_t cr_uid;
	short cr_ngroups;
	gid_t cr_groups[NGROUPS];
};

#define WMESGLEN 7
#define COMAPT_MAXLOGNAME 12
struct kinfo_proc {
	struct extern_proc kp_proc;
	struct eproc {
		struct proc *e_paddr;
		struct session *e_sess;
		struct _pcred e_pcred;
		struct _ucred e_ucred;
		struct vmspace e_vm;
		pid_t e_ppid;
		pid_t e_pgid;
		short e_jobc;
		dev_t e_tdev;
		pid_t e_tpgid;
		struct session *e_tsess;
		char e_wmesg[WMESGLEN + 1];
		segsz_t e_xsize;
		short e_xrssize;
		short e_xccount;
		short e_xswrss;
		int32_t e_flag;
		char e_login[COMAPT_MAXLOGNAME];
		int32_t e_spare[4];
	} kp_eproc;
};

/* bsd/sys/proc_info.h */
typedef struct fsid {
	int32_t val[2];
} fsid_t;

struct vinfo_stat {
	uint32_t vst_dev;
	uint16_t vst_mode;
	uint16_t vst_nlink;
	uint64_t vst_ino;
	uid_t vst_uid;
	gid_t vst_gid;
	int64_t vst_atime;
	int64_t vst_atimensec;
	int64_t vst_mtime;
	int64_t vst_mtimensec;
	int64_t vst_ctime;
	int64_t vst_ctimensec;
	int64_t vst_birthtime;
	int64_t vst_birthtimensec;
	off_t vst_size;
	int64_t vst_blocks;
	int32_t vst_blksize;
	uint32_t vst_flags;
	uint32_t vst_gen;
	uint32_t vst_rdev;
	int64_t vst_qspare[2];
};

struct vnode_info {
	struct vinfo_stat vi_stat;
	int vi_type;
	int vi_pad;
	fsid_t vi_fsid;
};

struct vnode_info_path {
	struct vnode_info vip_vi;
	char vip_path[MAXPATHLEN];
};

struct proc_vnodepathinfo {
	struct vnode_info_path pvi_cdir;
	struct vnode_info_path pvi_rdir;
};

#define PROC_PIDVNODEPATHINFO 9
#define PROC_INFO_CALL_PIDINFO 0x2
/* bsd/sys/proc.h, "Status values" of extern_proc.p_stat: a process that
 * has exited and awaits collection by its parent. bsd/kern/kern_exit.c
 * sets it once the process is dead; bsd/kern/kern_sysctl.c
 * (fill_user64_externproc) copies p_stat into kern.proc.pid as it is. */
#define SZOMB 5
#define SYS_proc_info 336

static void layout(void)
{
#define SIZE(s) printf("sizeof(%s) %zu\n", #s, sizeof(struct s))
#define OFF(s, f) printf("%s.%s %zu\n", #s, #f, offsetof(struct s, f))
#define CONST(c) printf("%s %d\n", #c, (int)(c))
	SIZE(kinfo_proc);
	OFF(kinfo_proc, kp_proc.p_pid);
	OFF(kinfo_proc, kp_proc.p_comm);
	OFF(kinfo_proc, kp_eproc);
	OFF(kinfo_proc, kp_eproc.e_ppid);
	printf("sizeof(p_comm) %zu\n", sizeof(((struct kinfo_proc *)0)->kp_proc.p_comm));
	SIZE(vnode_info);
	SIZE(vnode_info_path);
	SIZE(proc_vnodepathinfo);
	OFF(proc_vnodepathinfo, pvi_cdir.vip_path);
	OFF(proc_vnodepathinfo, pvi_rdir.vip_path);
	CONST(MAXPATHLEN);
	CONST(PROC_PIDVNODEPATHINFO);
	CONST(PROC_INFO_CALL_PIDINFO);
	CONST(SYS_proc_info);
	CONST(SZOMB);
	printf("sizeof(argc) %zu\n", sizeof(int));
}

/* procargs2 writes what sysctl_procargsx copies out, from the strings area
 * exec_copyout_strings laid on the stack. */
static int procargs2(int argc, char **argv)
{
	int noenv = 0;
	int i = 0;
	if (i < argc && strcmp(argv[i], "-noenv") == 0) {
		noenv = 1;
		i++;
	}
	if (i >= argc) {
		return 2;
	}
	static char area[1 << 16];
	size_t n = 0;
	const char *key = "executable_path=";
	/* exec_save_path: the prefix, the path and its NUL */
	n += (size_t)sprintf(area + n, "%s%s", key, argv[i++]) + 1;
	/* exec_extract_strings: pad the path to the pointer size */
	while (n % 8 != 0) {
		area[n++] = 0;
	}
	if (i >= argc || strcmp(argv[i++], "--") != 0) {
		return 2;
	}
	int nargs = 0;
	for (; i < argc && strcmp(argv[i], "--") != 0; i++, nargs++) {
		n += (size_t)sprintf(area + n, "%s", argv[i]) + 1;
	}
	size_t argend = n;
	for (i++; i < argc; i++) {
		n += (size_t)sprintf(area + n, "%s", argv[i]) + 1;
	}
	/* "Align the tail of the combined argv+envv area", then applev */
	while (n % 8 != 0) {
		area[n++] = 0;
	}
	n += (size_t)sprintf(area + n, "%s%s", key, "/the/apple/strings") + 1;
	n += (size_t)sprintf(area + n, "ptr_munge=") + 1;

	size_t start = strlen(key); /* argslen -= strlen(EXECUTABLE_KEY) */
	size_t end = noenv ? argend : n;
	fwrite(&nargs, sizeof(int), 1, stdout); /* suword(where, argc) */
	fwrite(area + start, 1, end - start, stdout);
	return 0;
}

static int vnodepathinfo(const char *cwd, const char *root)
{
	static struct proc_vnodepathinfo pvi;
	memset(&pvi, 0, sizeof(pvi));
	pvi.pvi_cdir.vip_vi.vi_type = 2; /* VDIR */
	pvi.pvi_cdir.vip_vi.vi_stat.vst_mode = 040755;
	pvi.pvi_cdir.vip_vi.vi_stat.vst_ino = 0x1234567;
	strncpy(pvi.pvi_cdir.vip_path, cwd, MAXPATHLEN);
	pvi.pvi_cdir.vip_path[MAXPATHLEN - 1] = 0;
	if (root[0] != 0) {
		pvi.pvi_rdir.vip_vi.vi_type = 2;
		strncpy(pvi.pvi_rdir.vip_path, root, MAXPATHLEN);
		pvi.pvi_rdir.vip_path[MAXPATHLEN - 1] = 0;
	}
	fwrite(&pvi, sizeof(pvi), 1, stdout);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "layout") == 0) {
		layout();
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "procargs2") == 0) {
		return procargs2(argc - 2, argv + 2);
	}
	if (argc == 4 && strcmp(argv[1], "vnodepathinfo") == 0) {
		return vnodepathinfo(argv[2], argv[3]);
	}
	fprintf(stderr, "usage: darwin_proc layout | procargs2 [-noenv] PATH -- ARG... -- ENV... | vnodepathinfo CWD ROOT\n");
	return 2;
}
