/* TEMPORARY STUB — replaced by the peers branch */
#ifndef STORBENCH_PEERS_H
#define STORBENCH_PEERS_H
struct peer {
	char name[65];
	char url[513];
	char token[256];
};
void peers_self_set(const char *url, const char *token);
int peers_get(const char *name, struct peer *out);
struct peer_clock {
	int reachable;
	long status;
	char error[200];
	char version[32], os[16], hostname[256];
	double rtt_ms, offset_ms, uncertainty_ms;
};
int peers_probe(const struct peer *p, int tries, struct peer_clock *out);
#endif
