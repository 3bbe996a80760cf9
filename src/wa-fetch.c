/* wa-fetch: fetches the URLs of a fetch list politely, writes what it got
 * to WARC/1.1 files and one fetch log row per URL to stdout.
 *
 * The politeness model is Castillo's ("Effective Web Crawling", 2004,
 * ch. 6.2: w seconds between requests to a site, c pages per connection, r
 * connections, never two at once to a site), robots.txt is RFC 9309, the
 * records are WARC 1.1 (ISO 28500:2017), conditional requests RFC 9110
 * sec. 13.  One process, one libcurl multi handle, one event loop.
 *
 * Here: the options and the phases of a run.  The run's parts are in
 * src/fetch/ (fetch.h), the politeness queues and policy in sites.c, one
 * request and its WARC records in transfer.c, the fetch log in
 * fetchlog.c, the robots.txt cache in robotscache.c. */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fetch/fetch.h"
#include "robots.h"
#include "url.h"
#include "wa.h"

static const char usage[] =
    "usage: wa-fetch [options] [URLS...]\n"
    "Fetches the URLs of the first column of URLS (or stdin) politely, in that\n"
    "order of priority; WARC records to -o, the fetch log to stdout.\n"
    "  -o WARC | --warc-prefix [DIR/]P  one file | P-TIME-SERIAL-HOST.warc.gz\n"
    "  --warc-operator, --warc-is-part-of, --warc-description TEXT: warcinfo\n"
    "  -P, --previous LOG  previous fetch log: conditional requests, changed column\n"
    "  -w SECONDS  wait between requests to a site (5s);  -r N  connections (32)\n"
    "  -L N  redirects to follow (0);  --per-connection N (100);  --retries N (2)\n"
    "  --scope FILE, --include RULE, --exclude RULE  URLs out are not fetched\n"
    "  -A AGENT  User-Agent (--contact URL adds (+URL));  -H 'NAME: VALUE' (repeat)\n"
    "  --robots-agent TOKEN      robots.txt product token (default: from AGENT)\n"
    "  --allow-private (every address not public)  --insecure (no TLS checks)\n"
    "  --cacert FILE, --capath DIR  trusted CAs (else SSL_CERT_FILE, SSL_CERT_DIR)\n"
    "  --allow-net CIDR          also allow the non-public addresses of CIDR\n"
    "  --resolve HOST:PORT:ADDR  connect to ADDR for HOST:PORT (repeatable)\n"
    "  --max-size SIZE           cap on a body, encoded or decoded (10M)\n"
    "  --max-crawl-delay SECONDS largest Crawl-delay, Retry-After obeyed (30s)\n"
    "  --warc-max-size SIZE (1G): new file past SIZE;  --warc-copy FILE: a copy\n"
    "  --robots-cache DIR        keep robots.txt files in DIR for 24 hours\n"
    "  --resume LOG  skip the URLs LOG has an outcome for;  --now TIME  clock start\n"
    "  --connect-timeout SECONDS (10s)   --timeout SECONDS per request (120s)\n"
    "  --low-speed-limit SIZE (1K), --low-speed-time SECONDS (30s): abort slower\n"
    "  -q  no progress;  -v  a line per request;  -h  help;  --version\n"
    "See wa-fetch(1).\n";

enum {
	OPT_ALLOW_PRIVATE = WA_OPT_FIRST_TOOL, OPT_ALLOW_NET, OPT_INSECURE, OPT_RESOLVE,
	OPT_MAX_SIZE, OPT_MAX_CRAWL_DELAY, OPT_WARC_MAX_SIZE, OPT_ROBOTS_CACHE,
	OPT_RESUME, OPT_CONNECT_TIMEOUT, OPT_TIMEOUT, OPT_LOW_SPEED_LIMIT,
	OPT_LOW_SPEED_TIME, OPT_ROBOTS_AGENT, OPT_CONTACT, OPT_PER_CONNECTION, OPT_WARC_COPY,
	OPT_CACERT, OPT_CAPATH, OPT_RETRIES, OPT_SCOPE, OPT_INCLUDE, OPT_EXCLUDE,
	OPT_WARC_PREFIX, OPT_WARC_OPERATOR, OPT_WARC_IS_PART_OF, OPT_WARC_DESCRIPTION,
};

/* Where the WARC files go besides -o, and the warcinfo fields given. */
struct warc_options {
	const char *prefix, *operator, *is_part_of, *description;
};

static const struct fetch_options default_options = {
	.wait = 5, .max_crawl_delay = 30, .connect_timeout = 10, .timeout = 120,
	.low_speed_time = 30, .parallel = 32, .per_connection = 100, .retries = 2,
	.max_size = 10 << 20, .warc_max_size = 1 << 30, .low_speed_limit = 1024,
	.agent = "wa-fetch/" WA_VERSION, .now = -1,
};

static void
slist_add(struct curl_slist **list, const char *s)
{
	struct curl_slist *l = curl_slist_append(*list, s);
	if (!l)
		wa_die("out of memory");
	*list = l;
}

static const char *
env_path(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

/* The certificate authorities: --cacert and --capath, or else, as curl(1)
 * does, SSL_CERT_FILE and SSL_CERT_DIR.  Checked now, for libcurl would
 * fail every https request on a file it cannot read. */
static void
choose_trust(struct transfer_config *cfg, bool insecure)
{
	const char *file_from = "--cacert", *dir_from = "--capath";
	char why[256];
	if (!cfg->cainfo && !cfg->capath && !insecure) {
		cfg->cainfo = env_path(file_from = "SSL_CERT_FILE");
		cfg->capath = env_path(dir_from = "SSL_CERT_DIR");
	}
	if (cfg->cainfo && !transfer_ca_usable(cfg->cainfo, false, why, sizeof why))
		wa_die("%s: %s: %s", file_from, cfg->cainfo, why);
	if (cfg->capath && !transfer_ca_usable(cfg->capath, true, why, sizeof why))
		wa_die("%s: %s: %s", dir_from, cfg->capath, why);
}

/* A warcinfo field's value: one line of text. */
static const char *
warcinfo_value(const char *option, const char *value)
{
	if (!*value)
		wa_usage_error("%s: the value is empty", option);
	for (const unsigned char *p = (const unsigned char *)value; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			wa_usage_error("%s: '%.*s...' holds a control character (byte 0x%02x): "
			    "a warcinfo field is one line of text", option,
			    (int)((const char *)p - value), value, *p);
	return value;
}

/* The prefix of --warc-prefix: a name, after a directory if any, that
 * can go into a WARC-Filename field. */
static const char *
warc_prefix(const char *value)
{
	const char *name = strrchr(value, '/');
	if (!*(name ? name + 1 : value))
		wa_usage_error("--warc-prefix: '%s' ends with no name for the files", value);
	return warcinfo_value("--warc-prefix", value);
}

/* The options; those libcurl takes as they are go to tcfg, the WARC's to
 * warc. */
static void
parse_options(struct fetch_options *opt, struct transfer_config *tcfg,
    struct warc_options *warc, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "allow-private", no_argument, NULL, OPT_ALLOW_PRIVATE },
		{ "allow-net", required_argument, NULL, OPT_ALLOW_NET },
		{ "insecure", no_argument, NULL, OPT_INSECURE },
		{ "resolve", required_argument, NULL, OPT_RESOLVE },
		{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
		{ "max-crawl-delay", required_argument, NULL, OPT_MAX_CRAWL_DELAY },
		{ "warc-max-size", required_argument, NULL, OPT_WARC_MAX_SIZE },
		{ "warc-copy", required_argument, NULL, OPT_WARC_COPY },
		{ "robots-cache", required_argument, NULL, OPT_ROBOTS_CACHE },
		{ "resume", required_argument, NULL, OPT_RESUME },
		{ "connect-timeout", required_argument, NULL, OPT_CONNECT_TIMEOUT },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "low-speed-limit", required_argument, NULL, OPT_LOW_SPEED_LIMIT },
		{ "low-speed-time", required_argument, NULL, OPT_LOW_SPEED_TIME },
		{ "now", required_argument, NULL, WA_OPT_NOW },
		{ "robots-agent", required_argument, NULL, OPT_ROBOTS_AGENT },
		{ "contact", required_argument, NULL, OPT_CONTACT },
		{ "previous", required_argument, NULL, 'P' },
		{ "per-connection", required_argument, NULL, OPT_PER_CONNECTION },
		{ "cacert", required_argument, NULL, OPT_CACERT },
		{ "capath", required_argument, NULL, OPT_CAPATH },
		{ "retries", required_argument, NULL, OPT_RETRIES },
		{ "scope", required_argument, NULL, OPT_SCOPE },
		{ "include", required_argument, NULL, OPT_INCLUDE },
		{ "exclude", required_argument, NULL, OPT_EXCLUDE },
		{ "warc-prefix", required_argument, NULL, OPT_WARC_PREFIX },
		{ "warc-operator", required_argument, NULL, OPT_WARC_OPERATOR },
		{ "warc-is-part-of", required_argument, NULL, OPT_WARC_IS_PART_OF },
		{ "warc-description", required_argument, NULL, OPT_WARC_DESCRIPTION },
		WA_COMMON_LONGOPTS
	};
	/* The spellings of the release before. */
	static const struct opt_renamed renamed[] = {
		{ 'c', OPT_PER_CONNECTION, "--per-connection" },
		{ 'p', 'P', "-P (--previous)" },
		{ 0, 0, NULL },
	};
	bool agent_given = false;
	int c;

	while ((c = getopt_long(argc, argv, "A:c:hH:L:o:p:P:qr:vw:", longopts, NULL)) != -1) {
		switch (opt_rename(c, renamed)) {
		case 'A':
			if (strchr("/ ", *optarg) || strpbrk(optarg, "\r\n"))
				wa_usage_error("-A: the agent must be one line starting "
				    "with a product token ('name/version')");
			opt->agent = optarg;
			agent_given = true;
			break;
		case 'H': {
			const char *why = transfer_header_refused(optarg);
			if (why)
				wa_usage_error("-H '%.*s': %s", (int)strcspn(optarg, "\r\n"),
				    optarg, why);
			slist_add(&tcfg->headers, optarg);
			break;
		}
		case OPT_PER_CONNECTION:
			opt->per_connection = opt_count("--per-connection", optarg, 1, 1000000);
			break;
		case OPT_RETRIES:
			opt->retries = opt_count("--retries", optarg, 0, 10);
			break;
		case 'L':
			opt->follow = opt_count("-L", optarg, 0, 50);
			break;
		case 'o':
			opt->warc = optarg;
			break;
		case 'P':
			opt->previous = optarg;
			break;
		case 'r':
			opt->parallel = opt_count("-r", optarg, 1, 10000);
			break;
		case 'w':
			opt->wait = opt_duration("-w", optarg);
			break;
		case OPT_ALLOW_PRIVATE:
			opt->allow_private = true;
			break;
		case OPT_ALLOW_NET:
			opt->allowed = wa_reallocarray(opt->allowed, opt->nallowed + 1,
			    sizeof *opt->allowed);
			if (!netaddr_block_parse(optarg, &opt->allowed[opt->nallowed++]))
				wa_usage_error("--allow-net: '%s' is not ADDR or ADDR/BITS "
				    "with no bits set past BITS", optarg);
			break;
		case OPT_INSECURE:
			opt->insecure = true;
			break;
		case OPT_RESOLVE: {
			const char *p = strchr(optarg, ':');
			if (!p || !strchr(p + 1, ':'))
				wa_usage_error("--resolve: '%s' is not HOST:PORT:ADDR", optarg);
			slist_add(&opt->resolve, optarg);
			break;
		}
		case OPT_CACERT:
			tcfg->cainfo = optarg;
			break;
		case OPT_CAPATH:
			tcfg->capath = optarg;
			break;
		case OPT_SCOPE:
			scope_read(&opt->scope, optarg);
			break;
		case OPT_INCLUDE:
			scope_option(&opt->scope, "--include", '+', optarg);
			break;
		case OPT_EXCLUDE:
			scope_option(&opt->scope, "--exclude", '-', optarg);
			break;
		case OPT_MAX_SIZE:
			opt->max_size = opt_size("--max-size", optarg);
			if (opt->max_size == 0)
				wa_usage_error("--max-size: must be more than 0");
			break;
		case OPT_MAX_CRAWL_DELAY:
			opt->max_crawl_delay = opt_duration("--max-crawl-delay", optarg);
			break;
		case OPT_WARC_MAX_SIZE:
			opt->warc_max_size = opt_size("--warc-max-size", optarg);
			break;
		case OPT_WARC_COPY:
			opt->warc_copy = optarg;
			break;
		case OPT_WARC_PREFIX:
			warc->prefix = warc_prefix(optarg);
			break;
		case OPT_WARC_OPERATOR:
			warc->operator = warcinfo_value("--warc-operator", optarg);
			break;
		case OPT_WARC_IS_PART_OF:
			warc->is_part_of = warcinfo_value("--warc-is-part-of", optarg);
			break;
		case OPT_WARC_DESCRIPTION:
			warc->description = warcinfo_value("--warc-description", optarg);
			break;
		case OPT_ROBOTS_CACHE:
			opt->robots_cache = optarg;
			break;
		case OPT_RESUME:
			opt->resume = optarg;
			break;
		case OPT_CONNECT_TIMEOUT:
			opt->connect_timeout = opt_duration("--connect-timeout", optarg);
			break;
		case OPT_TIMEOUT:
			opt->timeout = opt_duration("--timeout", optarg);
			break;
		case OPT_LOW_SPEED_LIMIT:
			opt->low_speed_limit = opt_size("--low-speed-limit", optarg);
			break;
		case OPT_LOW_SPEED_TIME:
			opt->low_speed_time = opt_duration("--low-speed-time", optarg);
			break;
		case WA_OPT_NOW:
			opt->now = opt_time("--now", optarg);
			if (opt->now < 0)
				wa_usage_error("--now: '%s' is before 1970", optarg);
			break;
		case OPT_ROBOTS_AGENT:
			if (!robots_token_valid(optarg))
				wa_usage_error("--robots-agent: '%s' is no product token "
				    "(letters, '_' and '-' only)", optarg);
			free(opt->robots_token);
			opt->robots_token = wa_strdup(optarg);
			break;
		case OPT_CONTACT:
			if (!*optarg || strpbrk(optarg, " \t\r\n()"))
				wa_usage_error("--contact: '%s' is not a URL", optarg);
			opt->contact = optarg;
			break;
		default:
			wa_common_option(c);
		}
	}
	choose_trust(tcfg, opt->insecure);
	if (opt->warc && warc->prefix)
		wa_usage_error("-o and --warc-prefix: the WARC goes to one or the other");
	if (opt->warc_copy && !opt->warc && !warc->prefix)
		wa_usage_error("--warc-copy: copies the WARC of -o or --warc-prefix, "
		    "and there is neither");
	if (opt->contact && agent_given)
		wa_usage_error("--contact: only for the default agent; -A AGENT "
		    "can hold the URL itself");
	if (opt->contact)
		opt->agent = opt->agent_buf = wa_asprintf("wa-fetch/%s (+%s)",
		    WA_VERSION, opt->contact);
	/* The product token: see robots_agent_token. */
	if (!opt->robots_token && !(opt->robots_token = robots_agent_token(opt->agent)))
		wa_usage_error("-A: '%s' starts with no product token of letters, "
		    "'_' and '-': give --robots-agent", opt->agent);
	if (opt->robots_cache && mkdir(opt->robots_cache, 0777) != 0 && errno != EEXIST) {
		wa_warn("--robots-cache: %s: %s: no robots.txt cache in this run",
		    opt->robots_cache, strerror(errno));
		opt->robots_cache = NULL;
	}
}

/* What the signal handler tells the loop. */
static volatile sig_atomic_t signals_seen;
static int wake_pipe[2] = { -1, -1 };

static void
on_signal(int sig)
{
	int saved = errno;
	(void)sig;
	signals_seen++;
	if (write(wake_pipe[1], "", 1) < 0) {
		/* the loop looks at signals_seen at least once a second */
	}
	errno = saved;
}

static void
catch_signals(struct fetch *f)
{
	struct sigaction sa;
	if (pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
		wa_die_errno("pipe");
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	f->signals_seen = &signals_seen;
	f->wake_fd = wake_pipe[0];
}

/* The value of the From header field given with -H, or NULL. */
static const char *
from_header(const struct curl_slist *headers)
{
	const char *from = NULL;
	for (; headers; headers = headers->next)
		if (strncasecmp(headers->data, "From:", 5) == 0)
			from = headers->data + 5 + strspn(headers->data + 5, " \t");
	return from;
}

/* The warcinfo record says what made the files (WARC 1.1, sec. 6.1 and
 * annex: software, robots policy, host, agent) and for whom and what
 * (operator, isPartOf, description), as given. */
static void
open_warc(struct fetch *f, const struct warc_options *warc)
{
	curl_version_info_data *cv = curl_version_info(CURLVERSION_NOW);
	char *software = wa_asprintf("wa-fetch/%s libcurl/%s", WA_VERSION, cv->version);
	char wait[32], host[256] = "";
	snprintf(wait, sizeof wait, "%gs", f->opt.wait);
	if (gethostname(host, sizeof host - 1) != 0)
		wa_warn("gethostname: %s: the WARC names no host", strerror(errno));
	struct warc_field info[12] = {
		{ "software", software },
		{ "format", "WARC File Format 1.1" },
		{ "conformsTo", "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/" },
		{ "robots", "obey" },
		{ "http-header-user-agent", f->opt.agent },
		{ "wa-fetch-robots-agent", f->opt.robots_token },
		{ "wa-fetch-wait", wait },
	};
	size_t n = 7;
	const struct warc_field given[] = {
		{ "hostname", host },
		{ "http-header-from", from_header(f->tcfg.headers) },
		{ "operator", warc->operator },
		{ "isPartOf", warc->is_part_of },
		{ "description", warc->description },
	};
	for (size_t i = 0; i < sizeof given / sizeof given[0]; i++)
		if (given[i].value && *given[i].value)
			info[n++] = given[i];
	if (warc->prefix)
		f->warc = warc_writer_open_named(warc->prefix, host, f->opt.warc_max_size,
		    info, n, f->opt.warc_copy);
	else
		f->warc = warc_writer_open(f->opt.warc, f->opt.warc_max_size, info, n,
		    f->opt.warc_copy);
	free(software);
}

/* The libcurl handles every request shares, and the request settings. */
static void
start_curl(struct fetch *f)
{
	if (!(f->multi = curl_multi_init()) || !(f->share = curl_share_init()))
		wa_die("libcurl could not start");
	curl_share_setopt(f->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
	curl_share_setopt(f->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
	f->tcfg = (struct transfer_config){ .agent = f->opt.agent,
	    .connect_timeout = f->opt.connect_timeout, .timeout = f->opt.timeout,
	    .low_speed_time = f->opt.low_speed_time,
	    .low_speed_limit = f->opt.low_speed_limit, .insecure = f->opt.insecure,
	    .allow_private = f->opt.allow_private, .allowed = f->opt.allowed,
	    .nallowed = f->opt.nallowed, .share = f->share,
	    /* from parse_options */
	    .cainfo = f->tcfg.cainfo, .capath = f->tcfg.capath, .headers = f->tcfg.headers };
	/* Idle connections of sites waiting out their delay stay open. */
	curl_multi_setopt(f->multi, CURLMOPT_MAXCONNECTS, (long)(2 * f->opt.parallel));
	f->inflight = wa_calloc(f->opt.parallel, sizeof *f->inflight);
	f->connections = f->opt.parallel;
}

/* Closes the WARC, writes the rows still waiting and ends the log;
 * false if a write error of the WARC lost rows. */
static bool
finish_output(struct fetch *f)
{
	if (f->warc) {
		warc_writer_wait(f->warc);
		fetch_flush_rows(f);
		warc_writer_close(f->warc);
	}
	/* Rows whose records a write error lost: the URLs are to do again. */
	fetch_log_lost_rows(f);
	if (fflush(stdout) == EOF || ferror(stdout))
		wa_die_errno("standard output");
	return !f->warc_error;
}

static void
free_run(struct fetch *f)
{
	/* Closing the connections calls on_close_socket with their sites. */
	curl_multi_cleanup(f->multi);
	sites_free(&f->sites);
	strmap_free(&f->previous, fetchlog_prev_free);
	for (size_t i = 0; i < f->nentries; i++)
		free(f->entries[i].url);
	free(f->entries);
	free(f->inflight);
	free(f->opt.robots_token);
	free(f->opt.agent_buf);
	curl_slist_free_all(f->opt.resolve);
	curl_slist_free_all(f->tcfg.headers);
	free(f->opt.allowed);
	scope_free(&f->opt.scope);
	curl_share_cleanup(f->share);
}

int
main(int argc, char **argv)
{
	struct fetch f = { .opt = default_options };
	struct warc_options warc = { 0 };

	wa_init(argc, argv, usage);
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		wa_die("libcurl could not start");
	clock_gettime(CLOCK_REALTIME, &f.run_start);
	parse_options(&f.opt, &f.tcfg, &warc, argc, argv);
	fetch_read_input(&f, argv + optind, argc - optind);
	start_curl(&f);
	catch_signals(&f);
	if (f.opt.warc || warc.prefix)
		open_warc(&f, &warc);
	sites_init(&f.sites);
	progress_start(&f.pg, "pages", f.nentries);
	fetch_queue_entries(&f);
	bool complete = fetch_run(&f);
	progress_end(&f.pg);
	complete = finish_output(&f) && complete;
	free_run(&f);
	curl_global_cleanup();
	url_cleanup();
	if (!complete) {
		wa_warn("interrupted: the URLs not done are logged as interrupted");
		return WA_EXIT_ERROR;
	}
	return WA_EXIT_OK;
}
