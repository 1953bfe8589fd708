/*
 * The oracle for bridge/peer/pcblist.go: macOS's net.inet.tcp.pcblist_n,
 * laid out by a C compiler.
 *
 * The structs below are transcribed (types, order, #pragma pack) from
 * Apple's xnu, tag xnu-11417.101.15 (commit
 * e3723e1f17661b24996789d8afc084c0c3303b26, github.com/apple-oss-distributions/xnu):
 *   bsd/sys/_types/_u_*.h, bsd/sys/_types.h    the base types
 *   bsd/netinet/in.h, bsd/netinet6/in6.h      struct in_addr, in6_addr
 *   bsd/sys/socketvar.h                       data_stats; under pack(4):
 *                                             xsocket_n, xsockbuf_n, xsockstat_n
 *   bsd/netinet/in_pcb.h                      inp_gen_t, in_addr_4in6; under
 *                                             pack(4): xinpcb_n, xinpgen
 *   bsd/netinet/tcp_var.h, tcp_timer.h        under pack(4): xtcpcb_n
 * and the stream is written the way bsd/netinet/in_pcblist.c
 * get_pcblist_n() writes it: an xinpgen, then per socket xinpcb_n,
 * xsocket_n, two xsockbuf_n, xsockstat_n, xtcpcb_n, each at an offset
 * rounded up to 8 (ROUNDUP64/ADVANCE64), the whole group zeroed first; then
 * a closing xinpgen. netstat (network_cmds-741.100.2, netstat.tproj/inet.c
 * protopr()) walks it by each record's xgn_len rounded up to 8 and stops
 * at a record no longer than an xinpgen.
 *
 *   pcblist_n layout
 *       prints "name value" lines: sizes, offsets and constants.
 *   pcblist_n buffer SOCKET...
 *       writes a pcblist_n answer to stdout, one group per SOCKET, each
 *       "family,laddr,lport,faddr,fport,uid,pid": family 4 or 6, addresses
 *       as 8 (IPv4) or 32 (IPv6) hex digits in network order, ports in
 *       decimal.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(long) == 8 && sizeof(void *) == 8 && sizeof(int) == 4, "an LP64 target");

/* bsd/sys/_types/_u_char.h … _u_int64_t.h, bsd/sys/types.h, bsd/sys/_types.h */
typedef unsigned char u_char;
typedef unsigned short u_short;
typedef unsigned int u_int;
typedef unsigned char u_int8_t;
typedef unsigned short u_int16_t;
typedef unsigned int u_int32_t;
typedef int int32_t;
typedef unsigned long long u_int64_t;
typedef u_int64_t u_quad_t;
typedef unsigned int __uint32_t;
typedef int __int32_t;
typedef unsigned short __uint16_t;
typedef unsigned char __uint8_t;
typedef __uint32_t uid_t; /* __darwin_uid_t */
typedef __int32_t pid_t;  /* __darwin_pid_t */
typedef __uint32_t in_addr_t;

/* bsd/netinet/in.h */
struct in_addr {
	in_addr_t s_addr;
};

/* bsd/netinet6/in6.h */
struct in6_addr {
	union {
		__uint8_t __u6_addr8[16];
		__uint16_t __u6_addr16[8];
		__uint32_t __u6_addr32[4];
	} __u6_addr;
};

/* bsd/sys/socketvar.h */
typedef u_quad_t so_gen_t;
#define SO_TC_STATS_MAX 4
struct data_stats {
	u_int64_t rxpackets;
	u_int64_t rxbytes;
	u_int64_t txpackets;
	u_int64_t txbytes;
};

#pragma pack(4)
#define XSO_SOCKET 0x001
#define XSO_RCVBUF 0x002
#define XSO_SNDBUF 0x004
#define XSO_STATS 0x008
#define XSO_INPCB 0x010
#define XSO_TCPCB 0x020

struct xsocket_n {
	u_int32_t xso_len;
	u_int32_t xso_kind;
	u_int64_t xso_so;
	short so_type;
	u_int32_t so_options;
	short so_linger;
	short so_state;
	u_int64_t so_pcb;
	int xso_protocol;
	int xso_family;
	short so_qlen;
	short so_incqlen;
	short so_qlimit;
	short so_timeo;
	u_short so_error;
	pid_t so_pgid;
	u_int32_t so_oobmark;
	uid_t so_uid;
	pid_t so_last_pid;
	pid_t so_e_pid;
	so_gen_t so_gencnt;
	u_int32_t so_flags;
	u_int32_t so_flags1;
	int32_t so_usecount;
	int32_t so_retaincnt;
	u_int32_t xso_filter_flags;
};

struct xsockbuf_n {
	u_int32_t xsb_len;
	u_int32_t xsb_kind;
	u_int32_t sb_cc;
	u_int32_t sb_hiwat;
	u_int32_t sb_mbcnt;
	u_int32_t sb_mbmax;
	int32_t sb_lowat;
	short sb_flags;
	short sb_timeo;
};

struct xsockstat_n {
	u_int32_t xst_len;
	u_int32_t xst_kind;
	struct data_stats xst_tc_stats[SO_TC_STATS_MAX];
};
#pragma pack()

/* bsd/netinet/in_pcb.h */
typedef u_quad_t inp_gen_t;
struct in_addr_4in6 {
	u_int32_t ia46_pad32[3];
	struct in_addr ia46_addr4;
};

#pragma pack(4)
struct xinpcb_n {
	u_int32_t xi_len;
	u_int32_t xi_kind;
	u_int64_t xi_inpp;
	u_short inp_fport;
	u_short inp_lport;
	u_int64_t inp_ppcb;
	inp_gen_t inp_gencnt;
	int inp_flags;
	u_int32_t inp_flow;
	u_char inp_vflag;
	u_char inp_ip_ttl;
	u_char inp_ip_p;
	union {
		struct in_addr_4in6 inp46_foreign;
		struct in6_addr inp6_foreign;
	} inp_dependfaddr;
	union {
		struct in_addr_4in6 inp46_local;
		struct in6_addr inp6_local;
	} inp_dependladdr;
	struct {
		u_char inp4_ip_tos;
	} inp_depend4;
	struct {
		u_int8_t inp6_hlim;
		int inp6_cksum;
		u_short inp6_ifindex;
		short inp6_hops;
	} inp_depend6;
	u_int32_t inp_flowhash;
	u_int32_t inp_flags2;
};

struct xinpgen {
	u_int32_t xig_len;
	u_int xig_count;
	inp_gen_t xig_gen;
	so_gen_t xig_sogen;
};
#pragma pack()

#define INP_IPV4 0x1
#define INP_IPV6 0x2

/* bsd/netinet/tcp_var.h, bsd/netinet/tcp_timer.h */
typedef __uint32_t tcp_seq;
typedef __uint32_t tcp_cc;
#define TCPT_NTIMERS_EXT 4
#define TCPS_LISTEN 1
#define TCPS_ESTABLISHED 4

#pragma pack(4)
struct xtcpcb_n {
	u_int32_t xt_len;
	u_int32_t xt_kind;
	u_int64_t t_segq;
	int t_dupacks;
	int t_timer[TCPT_NTIMERS_EXT];
	int t_state;
	u_int t_flags;
	int t_force;
	tcp_seq snd_una;
	tcp_seq snd_max;
	tcp_seq snd_nxt;
	tcp_seq snd_up;
	tcp_seq snd_wl1;
	tcp_seq snd_wl2;
	tcp_seq iss;
	tcp_seq irs;
	tcp_seq rcv_nxt;
	tcp_seq rcv_adv;
	u_int32_t rcv_wnd;
	tcp_seq rcv_up;
	u_int32_t snd_wnd;
	u_int32_t snd_cwnd;
	u_int32_t snd_ssthresh;
	u_int t_maxopd;
	u_int32_t t_rcvtime;
	u_int32_t t_starttime;
	int t_rtttime;
	tcp_seq t_rtseq;
	int t_rxtcur;
	u_int t_maxseg;
	int t_srtt;
	int t_rttvar;
	int t_rxtshift;
	u_int t_rttmin;
	u_int32_t t_rttupdated;
	u_int32_t max_sndwnd;
	int t_softerror;
	char t_oobflags;
	char t_iobc;
	u_char snd_scale;
	u_char rcv_scale;
	u_char request_r_scale;
	u_char requested_s_scale;
	u_int32_t ts_recent;
	u_int32_t ts_recent_age;
	tcp_seq last_ack_sent;
	tcp_cc cc_send;
	tcp_cc cc_recv;
	tcp_seq snd_recover;
	u_int32_t snd_cwnd_prev;
	u_int32_t snd_ssthresh_prev;
};
#pragma pack()

/* bsd/sys/socket.h, bsd/netinet/in.h: the families and protocol */
#define AF_INET 2
#define AF_INET6 30
#define IPPROTO_TCP 6

/* bsd/netinet/in_pcblist.c */
#define ROUNDUP64(x) (((x) + 7) & ~(size_t)7)
#define ADVANCE64(p, n) (void *)((char *)(p) + ROUNDUP64(n))

static void layout(void)
{
#define SIZE(s) printf("sizeof(%s) %zu\n", #s, sizeof(struct s))
#define OFF(s, f) printf("%s.%s %zu\n", #s, #f, offsetof(struct s, f))
#define CONST(c) printf("%s %d\n", #c, (int)(c))
	SIZE(xinpgen);
	SIZE(xinpcb_n);
	SIZE(xsocket_n);
	SIZE(xsockbuf_n);
	SIZE(xsockstat_n);
	SIZE(xtcpcb_n);
	OFF(xinpgen, xig_len);
	OFF(xinpgen, xig_count);
	OFF(xinpcb_n, xi_len);
	OFF(xinpcb_n, xi_kind);
	OFF(xinpcb_n, inp_fport);
	OFF(xinpcb_n, inp_lport);
	OFF(xinpcb_n, inp_vflag);
	OFF(xinpcb_n, inp_dependfaddr);
	OFF(xinpcb_n, inp_dependladdr);
	OFF(xinpcb_n, inp_dependfaddr.inp46_foreign.ia46_addr4);
	OFF(xinpcb_n, inp_dependladdr.inp46_local.ia46_addr4);
	OFF(xsocket_n, xso_len);
	OFF(xsocket_n, xso_kind);
	OFF(xsocket_n, so_uid);
	OFF(xsocket_n, so_last_pid);
	OFF(xsocket_n, so_e_pid);
	CONST(XSO_SOCKET);
	CONST(XSO_RCVBUF);
	CONST(XSO_SNDBUF);
	CONST(XSO_STATS);
	CONST(XSO_INPCB);
	CONST(XSO_TCPCB);
	CONST(INP_IPV4);
	CONST(INP_IPV6);
}

/* hex reads n bytes written as 2n hex digits; 0 on success. */
static int hex(const char *s, size_t len, unsigned char *out, size_t n)
{
	if (len != 2 * n) {
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		if (sscanf(s + 2 * i, "%2x", &v) != 1) {
			return -1;
		}
		out[i] = (unsigned char)v;
	}
	return 0;
}

/* be16 stores a port as the kernel keeps it: in network byte order. */
static void be16(u_short *dst, unsigned port)
{
	unsigned char b[2] = {(unsigned char)(port >> 8), (unsigned char)port};
	memcpy(dst, b, 2);
}

struct sock {
	int family;
	unsigned char laddr[16], faddr[16];
	unsigned lport, fport, uid;
	int pid;
};

static int parse(const char *arg, struct sock *s)
{
	char l[40], f[40];
	memset(s, 0, sizeof(*s));
	if (sscanf(arg, "%d,%39[0-9a-f],%u,%39[0-9a-f],%u,%u,%d", &s->family, l, &s->lport, f, &s->fport, &s->uid, &s->pid) != 7) {
		return -1;
	}
	size_t n = s->family == 4 ? 4 : 16;
	if ((s->family != 4 && s->family != 6) || hex(l, strlen(l), s->laddr, n) || hex(f, strlen(f), s->faddr, n)) {
		return -1;
	}
	return 0;
}

/* group fills one socket's records into buf (item_size bytes), as
 * get_pcblist_n() does for each inpcb. */
static void group(void *buf, size_t item_size, const struct sock *s, u_int64_t gen)
{
	struct xinpcb_n *xi = buf;
	struct xsocket_n *xso = ADVANCE64(xi, sizeof(*xi));
	struct xsockbuf_n *xsbrcv = ADVANCE64(xso, sizeof(*xso));
	struct xsockbuf_n *xsbsnd = ADVANCE64(xsbrcv, sizeof(*xsbrcv));
	struct xsockstat_n *xsostats = ADVANCE64(xsbsnd, sizeof(*xsbsnd));
	struct xtcpcb_n *xt = ADVANCE64(xsostats, sizeof(*xsostats));
	int listening = s->fport == 0;

	memset(buf, 0, item_size);

	/* inpcb_to_xinpcb_n */
	xi->xi_len = sizeof(*xi);
	xi->xi_kind = XSO_INPCB;
	xi->xi_inpp = 0xfeed0000 + gen;
	be16(&xi->inp_fport, s->fport);
	be16(&xi->inp_lport, s->lport);
	xi->inp_gencnt = gen;
	xi->inp_vflag = s->family == 4 ? INP_IPV4 : INP_IPV6;
	xi->inp_ip_ttl = 64;
	xi->inp_ip_p = IPPROTO_TCP;
	if (s->family == 4) {
		memcpy(&xi->inp_dependfaddr.inp46_foreign.ia46_addr4.s_addr, s->faddr, 4);
		memcpy(&xi->inp_dependladdr.inp46_local.ia46_addr4.s_addr, s->laddr, 4);
	} else {
		memcpy(xi->inp_dependfaddr.inp6_foreign.__u6_addr.__u6_addr8, s->faddr, 16);
		memcpy(xi->inp_dependladdr.inp6_local.__u6_addr.__u6_addr8, s->laddr, 16);
	}
	xi->inp_depend6.inp6_hops = -1;
	xi->inp_flowhash = 0x5eed;

	/* sotoxsocket_n */
	xso->xso_len = sizeof(*xso);
	xso->xso_kind = XSO_SOCKET;
	xso->xso_so = 0xbeef0000 + gen;
	xso->so_type = 1; /* SOCK_STREAM */
	xso->so_options = listening ? 0x2 : 0; /* SO_ACCEPTCONN */
	xso->so_state = listening ? 0x80 : 0x2; /* SS_PRIV, SS_ISCONNECTED */
	xso->so_pcb = xi->xi_inpp;
	xso->xso_protocol = IPPROTO_TCP;
	xso->xso_family = s->family == 4 ? AF_INET : AF_INET6;
	xso->so_qlimit = listening ? 128 : 0;
	xso->so_pgid = s->pid;
	xso->so_uid = s->uid;
	xso->so_last_pid = s->pid;
	xso->so_e_pid = s->pid;
	xso->so_gencnt = gen;
	xso->so_usecount = 1;

	/* sbtoxsockbuf_n, twice */
	xsbrcv->xsb_len = sizeof(*xsbrcv);
	xsbrcv->xsb_kind = XSO_RCVBUF;
	xsbrcv->sb_hiwat = 131072;
	xsbsnd->xsb_len = sizeof(*xsbsnd);
	xsbsnd->xsb_kind = XSO_SNDBUF;
	xsbsnd->sb_hiwat = 131072;

	/* sbtoxsockstat_n */
	xsostats->xst_len = sizeof(*xsostats);
	xsostats->xst_kind = XSO_STATS;

	/* tcpcb_to_xtcpcb_n */
	xt->xt_len = sizeof(*xt);
	xt->xt_kind = XSO_TCPCB;
	xt->t_state = listening ? TCPS_LISTEN : TCPS_ESTABLISHED;
	xt->t_maxseg = 16344;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "layout") == 0) {
		layout();
		return 0;
	}
	if (argc < 2 || strcmp(argv[1], "buffer") != 0) {
		fprintf(stderr, "usage: pcblist_n layout | buffer SOCKET...\n");
		return 2;
	}
	size_t item_size = ROUNDUP64(sizeof(struct xinpcb_n)) +
	    ROUNDUP64(sizeof(struct xsocket_n)) +
	    2 * ROUNDUP64(sizeof(struct xsockbuf_n)) +
	    ROUNDUP64(sizeof(struct xsockstat_n)) +
	    ROUNDUP64(sizeof(struct xtcpcb_n));
	static unsigned char buf[4096];
	if (item_size > sizeof(buf)) {
		return 3;
	}
	struct xinpgen xig;
	memset(&xig, 0, sizeof(xig));
	xig.xig_len = sizeof(xig);
	xig.xig_count = (u_int)(argc - 2);
	xig.xig_gen = 1000;
	xig.xig_sogen = 2000;
	fwrite(&xig, sizeof(xig), 1, stdout);
	for (int i = 2; i < argc; i++) {
		struct sock s;
		if (parse(argv[i], &s) != 0) {
			fprintf(stderr, "pcblist_n: bad socket %s\n", argv[i]);
			return 2;
		}
		group(buf, item_size, &s, (u_int64_t)(100 + i));
		fwrite(buf, item_size, 1, stdout);
	}
	fwrite(&xig, sizeof(xig), 1, stdout); /* the closing xinpgen */
	return 0;
}
