# One acquisition cycle of wa(7) as a resumable make batch over a state
# directory: schedule -> fetch -> extract -> extend the history ->
# wa-linkmat -u -> wa-pagerank --init -> wa-invrank -I -> wa-lambda -> page
# state -> wa-schedule, as "The cycle" and the EXAMPLES of wa(7) chain the
# tools by hand.  Every step writes its files under temporary names and
# renames them, the step's target last, so a killed cycle resumes at the
# step it stopped in and ends with the same files.  See wa-cycle(1).
#
#   make -f src/cycle/cycle.mk STATE=dir [NOW=time] [G=pages/day] ...

ifeq ($(strip $(STATE)),)
$(error STATE is not set: make -f cycle.mk STATE=dir)
endif

SHELL = /bin/sh
export LC_ALL = C

# Tools: from WA_BIN (a make or environment variable) if set, else PATH.
WA_BIN ?=
tool = $(if $(WA_BIN),$(WA_BIN)/)wa-$(1)

NOW =
G = 1000
T = 6h
WAIT = 5
CONNECTIONS = 32
PER_CONNECTION = 100
# Retries of a URL within the fetch; empty: wa-fetch's default.
RETRIES =
RESOLVE =
ALLOW_PRIVATE =
USER_AGENT =
ROBOTS_AGENT =
CONTACT =
# The certificate authorities file of wa-fetch --cacert, and header fields
# of -H, separated by '|': From: crawler@example.org|X-Crawl: test
CACERT =
HEADERS =
FETCH_FLAGS =
EXTRACT_FLAGS =
LINKMAT_FLAGS =
RANK_FLAGS =
LAMBDA_FLAGS =
SCHEDULE_FLAGS =
SCOPE =
# The scope rules of wa-schedule and wa-fetch (wa-formats(5), "Scope
# rules"): a rules file, and rules separated by spaces, in that order, SCOPE
# an include rule after those of the file.
SCOPE_FILE =
INCLUDE =
EXCLUDE =
OVERRIDES =
# Usefulness towards XML pages weighted by their importance (PR'' of
# Mignet et al.), or uniform over them (PR').
USEFULNESS = importance
SUBSCRIPTIONS =
SUBSCRIPTION_WEIGHT = 0.1
RETRY_MAX = 30d
# The pages extracted while they are fetched (wa-fetch --warc-copy into
# wa-extract), or after the fetch.
OVERLAP = yes
# The WARC files of a cycle, WARC_PREFIX-TIMESTAMP-SERIAL-HOST.warc.gz
# (wa-fetch --warc-prefix), and the fields of their warcinfo records: who
# made them, the collection they belong to, what they are.
WARC_PREFIX = wa
WARC_OPERATOR =
WARC_IS_PART_OF = $(notdir $(abspath $(STATE)))
WARC_DESCRIPTION =
# Part K of a cycle of wa-dist(1) names its files WARC_PREFIX-pK-...: the
# parts fetched on one host never share a name.
WARC_PART =
# The lastmod and changefreq of the sitemaps fetched (wa-extract --hints),
# gathered over the cycles in hints.tsv and read by wa-lambda --hints.
SITEMAP_HINTS = yes

# Cycle N is the one after STATE/current (a link to the last complete
# cycle); an interrupted cycle N is thus resumed by the next run.
# (One shell for both: make starts once a step.)
hash := \#
PREV_N := $(shell p=$$(readlink '$(STATE)/current' 2>/dev/null); \
	p=$${p$(hash)$(hash)*cycle-}; echo "$$p $$(($${p:-0} + 1))")
PREV := $(filter-out $(lastword $(PREV_N)),$(PREV_N))
N := $(lastword $(PREV_N))
C := $(STATE)/cycle-$(N)
P := $(STATE)/cycle-$(PREV)

quote = '$(subst ','\'',$(1))'
SCOPE_OPTS = $(if $(SCOPE_FILE),--scope $(call quote,$(SCOPE_FILE))) \
	$(if $(SCOPE),--include $(call quote,~$(SCOPE))) \
	$(foreach r,$(INCLUDE),--include $(call quote,$(r))) \
	$(foreach r,$(EXCLUDE),--exclude $(call quote,$(r)))
FETCH_OPTS = -w $(WAIT) -r $(CONNECTIONS) --per-connection $(PER_CONNECTION) \
	$(if $(NOW),--now $(NOW)) $(if $(ALLOW_PRIVATE),--allow-private) \
	$(if $(USER_AGENT),-A '$(subst ','\'',$(USER_AGENT))') \
	$(if $(ROBOTS_AGENT),--robots-agent '$(ROBOTS_AGENT)') \
	$(if $(CONTACT),--contact '$(CONTACT)') \
	$(if $(CACERT),--cacert '$(subst ','\'',$(CACERT))') \
	$(if $(HEADERS),-H '$(subst |,' -H ',$(subst ','\'',$(HEADERS)))') \
	$(foreach r,$(RESOLVE),--resolve $(r)) $(strip $(SCOPE_OPTS)) \
	$(if $(WARC_OPERATOR),--warc-operator '$(subst ','\'',$(WARC_OPERATOR))') \
	$(if $(WARC_IS_PART_OF),--warc-is-part-of '$(subst ','\'',$(WARC_IS_PART_OF))') \
	$(if $(WARC_DESCRIPTION),--warc-description '$(subst ','\'',$(WARC_DESCRIPTION))') \
	$(FETCH_FLAGS)
EXTRACT_OPTS = $(if $(ROBOTS_AGENT),--robots-agent '$(ROBOTS_AGENT)') $(EXTRACT_FLAGS)
HINTS := $(filter yes,$(SITEMAP_HINTS))
# The hints file of wa-extract, or nothing without SITEMAP_HINTS.
extract_hints = $(if $(HINTS),--hints '$(1)')
# hints.new, this cycle's hints, joins the last cycle's hints.tsv, sorted
# as wa-lambda reads it, one row per distinct row of any cycle.
HINTS_SORT = sort -u -t '$(TAB)' -k1,1 -k3,3n -k2,2 -k4,4
gather_hints = $(HINTS_SORT) '$(C)/hints.new' | \
	$(HINTS_SORT) -m - $(wildcard $(P)/hints.tsv) >'$(C)/hints.tmp' && \
	rm -f '$(C)/hints.new' && mv '$(C)/hints.tmp' '$(C)/hints.tsv'
RANK_OPTS = $(RANK_FLAGS) $(if $(SUBSCRIPTIONS),--subscriptions '$(SUBSCRIPTIONS)' \
	--subscription-weight $(SUBSCRIPTION_WEIGHT))

empty :=
TAB := $(empty)	$(empty)
define newline


endef

# The cycle's WARC files, quoted for the shell, in the order wa-fetch
# wrote them: the files of one fetch share prefix, timestamp and host, and
# their fixed-width serials put them in that order by name.
WARC_NAME = $(WARC_PREFIX)$(if $(WARC_PART),-p$(WARC_PART))
WARC_FILES = $(foreach f,$(sort $(wildcard $(C)/*.warc.gz)),'$(f)')

# The schedule, from the state of the last cycle (at the clock) or of this
# one (T ahead): the same options both times.
SCHEDULE = $(call tool,schedule) -q -G $(G) -T $(T) --retry-max $(RETRY_MAX) \
	$(if $(NOW),--now $(NOW)) $(strip $(SCOPE_OPTS)) $(SCHEDULE_FLAGS)
# The clock in Unix seconds: the time of the URLs refused without a
# request (robots.txt, a bad URL...) in access.tsv.
# Only the history step reads it.
CLOCK = $(shell expr '$(NOW)' : '[0-9][0-9]*$$' >/dev/null && echo '$(NOW)' || \
	date -u $(if $(NOW),-d '$(NOW)') +%s)
# A fetch log row that is an attempt: all but the URLs left for later.
NOT_TRIED = ^(interrupted|crawl-delay|retry-after)$$
SUCCESS = ^(2[0-9][0-9]|3[0-9][0-9])$$

# The settings each step uses, as its command lines take them.  A step's
# record of them, cycle-N/.settings-STEP, is rewritten when a run's
# settings differ from it, which makes the step, and those after it, out
# of date: a cycle run again with other settings (after a failure, say)
# redoes what they change.  A record is made when its step is first
# reached, with the oldest time: a step found done without one (in a cycle
# begun before these records) is taken to have used the current settings.
# The check of the settings records nothing.
SETTINGS_plan = $(if $(PREV),$(SCHEDULE))
SETTINGS_fetch = $(FETCH_OPTS) --warc-prefix $(WARC_NAME)
SETTINGS_extract = $(EXTRACT_OPTS)$(if $(HINTS), --hints)
SETTINGS_history = $(NOW)
SETTINGS_graph = $(LINKMAT_FLAGS)
SETTINGS_rank = $(RANK_OPTS) $(USEFULNESS)
SETTINGS_lambda = $(LAMBDA_FLAGS)$(if $(HINTS), --hints)
SETTINGS_next = $(SCHEDULE) $(T) $(SCOPE) $(OVERRIDES)
SETTINGS_report = $(USEFULNESS)
STEPS = plan fetch extract history graph rank lambda next report
# The records are compared and rewritten by make itself: reading this
# makefile, once a step, starts no process for them.
settings_of = $(1): $(strip $(SETTINGS_$(1)))
same = $(and $(findstring $(1),$(2)),$(findstring $(2),$(1)))
# make 4.3's $(file <) leaves the final newline of some files: a record
# is the same with it or without it.
update_record = $(eval recorded_settings := $$(file <$(C)/.settings-$(1)))$(if $(or \
	$(call same,$(recorded_settings),$(call settings_of,$(1))), \
	$(call same,$(recorded_settings),$(call settings_of,$(1))$(newline))),, \
	$(file >$(C)/.settings-$(1),$(call settings_of,$(1))))
ifneq ($(MAKECMDGOALS),settings)
$(foreach s,$(STEPS),$(if $(wildcard $(C)/.settings-$(s)),$(call update_record,$(s))))
endif
# A shell makes the first record, as a recipe: make -q and -n expand
# recipes, and would write it with $(file >).
$(C)/.settings-%: | $(C)
	@printf '%s\n' '$(subst ','\'',$(call settings_of,$*))' >'$@.new' && \
		touch -d @0 '$@.new' && mv '$@.new' '$@'

.DELETE_ON_ERROR:
.PHONY: cycle plan fetch extract history graph rank lambda state next report settings

# The settings, checked before a cycle starts (wa-cycle(1)) by the tools
# that take them, run on empty inputs in a directory of their own; the
# tools that take no setting but their _FLAGS only when these are set.
settings:
	$(if $(filter-out importance uniform,$(USEFULNESS)),$(error USEFULNESS is importance or uniform, not '$(USEFULNESS)'))
	$(if $(filter-out yes no,$(OVERLAP)),$(error OVERLAP is yes or no, not '$(OVERLAP)'))
	awk -v scope='$(SCOPE)' 'BEGIN { if ("" ~ scope) exit 0 }' 2>/dev/null || \
		{ echo "SCOPE: '$(SCOPE)' is not an extended regular expression of awk" >&2; exit 1; }
	$(foreach v,WARC_OPERATOR WARC_IS_PART_OF WARC_DESCRIPTION,$(if $(findstring $(newline),$($(v))),$(error $(v) holds a line break: a warcinfo field is one line of text)))
	case '$(subst ','\'',$(WARC_NAME))' in ''|*[!A-Za-z0-9._-]*) \
		echo "WARC_PREFIX: '$(subst ','\'',$(WARC_PREFIX))' is not a name of" \
			"letters, digits, '.', '_' and '-'" >&2; exit 1;; esac
	$(if $(filter-out yes no,$(SITEMAP_HINTS)),$(error SITEMAP_HINTS is yes or no, not '$(SITEMAP_HINTS)'))
	d=$$(mktemp -d) && trap 'rm -rf "$$d"' EXIT && \
	$(SCHEDULE) --ahead $(T) $(foreach o,$(OVERRIDES),--overrides '$(o)') </dev/null >/dev/null && \
	$(call tool,fetch) -q $(FETCH_OPTS) --warc-prefix "$$d/$(WARC_NAME)" </dev/null >/dev/null && \
	$(if $(strip $(EXTRACT_OPTS)),$(call tool,extract) -q $(EXTRACT_OPTS) </dev/null >/dev/null &&) \
	$(if $(strip $(LINKMAT_FLAGS) $(RANK_OPTS)), \
		$(call tool,linkmat) -q $(LINKMAT_FLAGS) -o "$$d/graph" </dev/null && \
		$(call tool,pagerank) -q $(RANK_OPTS) -o "$$d/importance" "$$d/graph" && \
		$(call tool,invrank) -q $(RANK_FLAGS) -o "$$d/usefulness" "$$d/graph" &&) \
	$(if $(strip $(LAMBDA_FLAGS)),$(call tool,lambda) -q $(LAMBDA_FLAGS) </dev/null >/dev/null &&) :

# The steps, by name, as wa-cycle(1) runs them one by one.
# A run killed by SIGKILL may leave the temporary files of the tools
# (.NAME.XXXXXX) in the cycle directory; the complete cycle removes them.
cycle: $(C)/report.txt
	find '$(C)' -mindepth 1 -maxdepth 1 -name '.*' -exec rm -rf {} +
	ln -sfn cycle-$(N) '$(STATE)/.current.tmp'
	mv -T '$(STATE)/.current.tmp' '$(STATE)/current'
plan: $(C)/plan.tsv
fetch: $(C)/fetch.log
extract: $(C)/links.tsv
history: $(C)/history.tsv
graph: $(C)/graph
rank: $(C)/importance.tsv
lambda: $(C)/lambda.tsv
state: $(C)/state.tsv
next: $(C)/next.tsv
report: $(C)/report.txt

$(C):
	mkdir -p '$@'

# The fetch list: the seeds in the first cycle; then the schedule of the
# last cycle's state at the clock, followed by the seeds it did not know
# (reason seed, priority 0).  It is the last cycle's next.tsv when the
# cycle starts T after it; cycles closer together fetch no page read less
# than T ago.  The seeds file is order-only: editing it during a cycle
# does not restart the cycle.  Its lines may end in CR LF, as a file
# written on Windows does: the CR is no part of a URL (the URL Standard
# strips it), and wa-url's messages name the seeds file.
$(C)/plan.tsv: $(C)/.settings-plan | $(STATE)/seeds.tsv $(C)
	sed 's/\r$$//' '$(STATE)/seeds.tsv' | $(call tool,url) -q - >'$@.url' 2>'$@.err'; \
		s=$$?; sed 's|^\(wa-url: \)stdin:|\1$(STATE)/seeds.tsv:|' '$@.err' >&2; \
		rm -f '$@.err'; exit $$s
ifeq ($(PREV),)
	awk -F '$(TAB)' -v OFS='$(TAB)' '!seen[$$1]++ { u[++n] = $$1 } \
		END { for (i = 1; i <= n; i++) print u[i], "seed", n - i + 1, "-" }' \
		'$@.url' >'$@.tmp'
else
	cut -f1 '$(P)/state.tsv' '$(P)/access.tsv' | sort -u >'$@.known'
	cut -f1 '$@.url' | sort -u | comm -23 - '$@.known' >'$@.new'
	awk -F '$(TAB)' -v OFS='$(TAB)' 'NR == FNR { new[$$1] = 1; next } \
		$$1 in new && !seen[$$1]++ { print $$1, "seed", 0, "-" }' \
		'$@.new' '$@.url' >'$@.seeds'
	$(SCHEDULE) $(if $(wildcard $(P)/overrides.tsv),--overrides '$(P)/overrides.tsv') \
		'$(P)/state.tsv' >'$@.sched'
	cat '$@.sched' '$@.seeds' >'$@.tmp' && rm -f '$@.known' '$@.new' '$@.seeds' '$@.sched'
endif
	rm -f '$@.url' && mv '$@.tmp' '$@'

# The WARC files are renamed by wa-fetch when complete, the log after them:
# a fetch killed before its log is renamed is run again from the start.
# With OVERLAP, wa-extract reads a copy of the records as wa-fetch writes
# them, through a pipe, and leaves its links and pages as .links-overlap and
# .pages-overlap, and its settings as .settings-overlap, for the extract
# step: the same bytes as wa-extract of the WARC files would write, in a
# fetch's time rather than after it.  A fetch that fails fails the step,
# whatever wa-extract did.
FETCH = $(call tool,fetch) $(FETCH_OPTS) $(if $(PREV),-P $(P)/fetched.tsv) \
	$(if $(RETRIES),--retries $(RETRIES)) --warc-prefix '$(C)/$(WARC_NAME)'
$(C)/fetch.log: $(C)/plan.tsv $(C)/.settings-fetch
	rm -f $(WARC_FILES) '$(C)'/.*-overlap*
ifeq ($(OVERLAP),yes)
	printf '%s\n' '$(subst ','\'',$(call settings_of,extract))' >'$(C)/.settings-overlap'
	{ $(FETCH) --warc-copy /dev/fd/3 '$<' 3>&1 >'$@.tmp'; \
		echo $$? >'$(C)/.status-overlap'; } | \
		$(call tool,extract) -q $(EXTRACT_OPTS) -p '$(C)/.pages-overlap' \
		$(call extract_hints,$(C)/.hints-overlap) - \
		>'$(C)/.links-overlap.tmp'; \
	extracted=$$? fetched=$$(cat '$(C)/.status-overlap'); \
	[ "$$fetched" = 0 ] || exit "$$fetched"; \
	if [ $$extracted = 0 ]; then mv '$(C)/.links-overlap.tmp' '$(C)/.links-overlap'; \
	else rm -f '$(C)'/.*-overlap*; echo "the extraction of the fetch failed:" \
		"the extract step will read the WARC files" >&2; fi
else
	$(FETCH) '$<' >'$@.tmp'
endif
	mv '$@.tmp' '$@'

# The links and pages the fetch extracted, if its extract settings were
# these; else the WARC files read after the fetch, in the order wa-fetch
# wrote them.  With SITEMAP_HINTS the sitemap hints of this cycle join
# the last cycle's hints.tsv.
$(C)/links.tsv: $(C)/fetch.log $(C)/.settings-extract
	if [ -f '$(C)/.links-overlap' ] && [ -f '$(C)/.pages-overlap' ] && \
	    $(if $(HINTS),[ -f '$(C)/.hints-overlap' ] &&) \
	    [ "$$(cat '$(C)/.settings-overlap')" = '$(subst ','\'',$(call settings_of,extract))' ]; then \
		mv '$(C)/.links-overlap' '$@.tmp' && mv '$(C)/.pages-overlap' '$(C)/pages.tmp' \
		$(if $(HINTS),&& mv '$(C)/.hints-overlap' '$(C)/hints.new'); \
	else \
		$(call tool,extract) -q $(EXTRACT_OPTS) -p '$(C)/pages.tmp' \
			$(call extract_hints,$(C)/hints.new) \
			$(WARC_FILES) \
			>'$@.tmp'; \
	fi
	rm -f '$(C)'/.*-overlap*
	$(if $(HINTS),$(gather_hints))
	mv '$(C)/pages.tmp' '$(C)/pages.tsv' && mv '$@.tmp' '$@'

# The observations of the fetch log extend the history (wa-formats(5));
# types.tsv keeps the type of every page fetched, fetched.tsv the last
# 2xx or 304 row of every URL (the validators of the next fetch, -p),
# access.tsv the time of every URL's last attempt and failures.tsv the
# URLs whose last attempts failed, with how many in a row.
$(C)/history.tsv: $(C)/links.tsv $(C)/.settings-history
	awk -F '$(TAB)' -v OFS='$(TAB)' '$$3 ~ /^(2[0-9][0-9]|304)$$/ \
		{ print $$1, $$2, $$9, $$7 }' '$(C)/fetch.log' | \
		sort -t '$(TAB)' -k1,1 -k2,2n >'$@.obs'
	sort -m -u -t '$(TAB)' -k1,1 -k2,2n $(if $(PREV),'$(P)/history.tsv') \
		'$@.obs' >'$@.tmp'
	awk -F '$(TAB)' -v OFS='$(TAB)' '$$2 != "error" { print $$1, $$2 }' \
		'$(C)/pages.tsv' | sort -u -t '$(TAB)' -k1,1 >'$(C)/types.new'
	$(if $(PREV),join -t '$(TAB)' -v 1 '$(P)/types.tsv' '$(C)/types.new',:) | \
		sort -m -t '$(TAB)' -k1,1 - '$(C)/types.new' >'$(C)/types.tmp'
	awk -F '$(TAB)' '$$3 ~ /^(2[0-9][0-9]|304)$$/' '$(C)/fetch.log' | \
		cat $(if $(PREV),'$(P)/fetched.tsv') - | sort -s -t '$(TAB)' -k1,1 | \
		awk -F '$(TAB)' '$$1 != u && NR > 1 { print l } { u = $$1; l = $$0 } \
			END { if (NR) print l }' >'$(C)/fetched.tmp'
	awk -F '$(TAB)' -v OFS='$(TAB)' -v now=$(CLOCK) \
		'$$3 !~ /$(NOT_TRIED)/ { print $$1, $$2 == "-" ? now : $$2, $$3 }' \
		'$(C)/fetch.log' | sort -t '$(TAB)' -k1,1 -k2,2n >'$(C)/tries.tmp'
	cut -f1,2 '$(C)/tries.tmp' | \
		sort -m -t '$(TAB)' -k1,1 -k2,2n $(if $(PREV),'$(P)/access.tsv') - | \
		awk -F '$(TAB)' -v OFS='$(TAB)' '$$1 != u && NR > 1 { print u, t } \
		{ u = $$1; t = $$2 } END { if (NR) print u, t }' >'$(C)/access.tmp'
	awk -F '$(TAB)' -v OFS='$(TAB)' -v last='$(if $(PREV),$(P)/failures.tsv)' \
		'BEGIN { while (last != "" && (getline l <last) > 0) { \
			split(l, f, "$(TAB)"); n[f[1]] = f[2] } } \
		{ n[$$1] = $$3 ~ /$(SUCCESS)/ ? 0 : n[$$1] + 1 } \
		END { for (u in n) if (n[u]) print u, n[u] }' '$(C)/tries.tmp' | \
		sort -t '$(TAB)' -k1,1 >'$(C)/failures.tmp'
	mv '$(C)/failures.tmp' '$(C)/failures.tsv' && mv '$(C)/types.tmp' '$(C)/types.tsv' && \
		mv '$(C)/fetched.tmp' '$(C)/fetched.tsv' && mv '$(C)/access.tmp' '$(C)/access.tsv' && \
		rm -f '$(C)/tries.tmp' '$@.obs' '$(C)/types.new' && mv '$@.tmp' '$@'

# wa-linkmat replaces the graph directory atomically.
$(C)/graph: $(C)/history.tsv $(C)/.settings-graph
	$(call tool,linkmat) -q $(LINKMAT_FLAGS) $(if $(PREV),-u '$(P)/graph') \
		-p '$(C)/pages.tsv' -o '$@' '$(C)/links.tsv'

# Importance from the last cycle's, then the usefulness of HTML pages
# towards XML pages weighted by this importance (or uniform with
# USEFULNESS=uniform): two runs take the time of wa-pagerank -U, which
# computes PR' after the importance in one process (wa-pagerank(1)).  With no XML page the usefulness is empty and
# the schedule weighs HTML pages by importance.  -v puts the residual of
# every iteration in rank.log; a run that fails shows its messages too.
$(C)/importance.tsv: $(C)/graph $(C)/.settings-rank
	$(if $(filter-out importance uniform,$(USEFULNESS)),$(error USEFULNESS is importance or uniform, not '$(USEFULNESS)'))
	$(if $(filter-out yes no,$(OVERLAP)),$(error OVERLAP is yes or no, not '$(OVERLAP)'))
	$(call tool,pagerank) -v $(RANK_OPTS) \
		$(if $(PREV),--init '$(P)/importance.tsv') \
		-o '$@.tmp' '$<' 2>'$(C)/rank.tmp' || { cat '$(C)/rank.tmp' >&2; exit 1; }
	$(call tool,invrank) -v $(RANK_FLAGS) \
		$(if $(filter importance,$(USEFULNESS)),-I '$@.tmp') \
		-o '$(C)/usefulness.tmp' '$<' 2>>'$(C)/rank.tmp' || { cat '$(C)/rank.tmp' >&2; exit 1; }
	mv '$(C)/rank.tmp' '$(C)/rank.log' && mv '$(C)/usefulness.tmp' '$(C)/usefulness.tsv' && \
		mv '$@.tmp' '$@'

# With SITEMAP_HINTS, the hints the extract step gathered; an extraction
# spread over hosts by wa-dist brings none back, and they are then read
# from the cycle's WARC files here.
$(C)/lambda.tsv: $(C)/history.tsv $(C)/.settings-lambda
ifneq ($(HINTS),)
	[ -f '$(C)/hints.tsv' ] || { $(call tool,extract) -q $(EXTRACT_OPTS) \
		$(call extract_hints,$(C)/hints.new) \
		$(WARC_FILES) >/dev/null && \
		$(gather_hints); }
endif
	$(call tool,lambda) -q $(LAMBDA_FLAGS) $(call extract_hints,$(C)/hints.tsv) \
		-o '$@' '$<'

# The page state (wa-formats(5)), without categories: every node of the
# graph with its type there (XML suspects too), the failures last.
$(C)/state.tsv: $(C)/importance.tsv $(C)/lambda.tsv
	$(call tool,linkmat) --dump-nodes '$(C)/graph' | cut -f1,2 | \
	join -t '$(TAB)' -a 1 -e - -o 0,1.2,2.2 - '$(C)/importance.tsv' | \
	join -t '$(TAB)' -a 1 -e - -o 0,1.2,1.3,2.2 - '$(C)/usefulness.tsv' | \
	join -t '$(TAB)' -a 1 -e - -o 0,1.2,1.3,1.4,2.2 - '$(C)/lambda.tsv' | \
	join -t '$(TAB)' -a 1 -e - -o 0,1.2,1.3,1.4,1.5,2.2 - '$(C)/access.tsv' | \
	join -t '$(TAB)' -a 1 -e - -o 0,1.2,1.3,1.4,1.5,1.6,2.2 - '$(C)/failures.tsv' | \
	awk -F '$(TAB)' -v OFS='$(TAB)' '{ f = $$7; $$7 = "-"; print $$0, f }' >'$@.tmp'
	mv '$@.tmp' '$@'

# Pages outside SCOPE get the schedule override never, as they did before
# the scope rules, which leave them out too; the rows of OVERRIDES win over
# those, not over the scope; the next cycle's plan.tsv uses them again.
# next.tsv is the plan of the next cycle if it starts T after this one
# (--ahead): right after a fetch no page is due.
$(C)/next.tsv: $(C)/state.tsv $(C)/.settings-next
	awk -F '$(TAB)' -v OFS='$(TAB)' -v scope='$(SCOPE)' \
		'scope != "" && $$1 !~ scope { print $$1, "never", "-" }' '$<' | \
		cat $(OVERRIDES) - | sort -s -t '$(TAB)' -k1,1 | \
		awk -F '$(TAB)' '$$1 != u { print } { u = $$1 }' >'$(C)/overrides.tmp'
	mv '$(C)/overrides.tmp' '$(C)/overrides.tsv'
	$(SCHEDULE) --ahead $(T) --overrides '$(C)/overrides.tsv' \
		--summary '$(C)/summary.tsv' --plan '$(C)/frequencies.tmp' '$<' >'$@.tmp'
	mv '$(C)/frequencies.tmp' '$(C)/frequencies.tsv' && mv '$@.tmp' '$@'

# The report: what the fetch found, the top pages, the rank residuals and
# the plan's summary.  The top pages are kept as they come, by importance
# and then URL, as sort -k2,2gr -k1,1 | head would give them without
# sorting every page by strtold.
$(C)/report.txt: $(C)/next.tsv $(C)/.settings-report
	{ \
	echo "cycle $(N)"; \
	awk -F '$(TAB)' '$$2 != "-" { f++ } \
		$$3 ~ /^(2[0-9][0-9]|304)$$/ && $$9 == "-" { n++ } \
		$$9 == "1" { c++ } $$9 == "0" { u++ } \
		$$3 !~ /^(2[0-9][0-9]|304)$$/ { e[$$3]++ } \
		END { printf "urls %d\nfetched %d\nnew %d\nchanged %d\nunchanged %d\n", \
			NR, f, n, c, u; fflush(); \
			for (k in e) printf "error %s %d\n", k, e[k] | "sort"; \
			close("sort") }' \
		'$(C)/fetch.log'; \
	awk -F '$(TAB)' -v rows=$$(awk -F '$(TAB)' '$$1 == "rows" { print $$2 }' \
		'$(C)/summary.tsv') 'END { printf "planned %d of %d\n", NR, rows }' \
		'$(C)/plan.tsv'; \
	if [ -s '$(C)/usefulness.tsv' ]; then \
		echo "usefulness: towards the XML pages ($(USEFULNESS))"; \
	else \
		echo "usefulness: none, no XML page: HTML pages weighed by importance"; \
	fi; \
	echo "top 10 by importance:"; \
	awk -F '$(TAB)' '{ v = $$2 + 0 } \
		n == 10 && !(v > tv[10] || (v == tv[10] && $$1 < tu[10])) { next } \
		{ i = n < 10 ? ++n : 10; \
		  while (i > 1 && (v > tv[i - 1] || (v == tv[i - 1] && $$1 < tu[i - 1]))) { \
			tv[i] = tv[i - 1]; tu[i] = tu[i - 1]; i-- } \
		  tv[i] = v; tu[i] = $$1 } \
		END { for (i = 1; i <= n; i++) printf "  %.6f %s\n", tv[i], tu[i] }' \
		'$(C)/importance.tsv'; \
	echo "rank residuals:"; \
	sed -n 's/.*\(iteration [0-9]*\): \(.*\); [0-9.]* s$$/  \1 \2/p' \
		'$(C)/rank.log'; \
	echo "plan summary:"; \
	awk -F '$(TAB)' '{ printf "  %s %s\n", $$1, $$2 }' '$(C)/summary.tsv'; \
	} >'$@.tmp'
	mv '$@.tmp' '$@'

# With CDX=yes, index.cdxj: the CDXJ index of the cycle's WARC files, for
# replay and lookup with pywb (wa-cdx(1)).  The last step (cycle) waits
# for it.
CDX = no
ifneq ($(filter-out yes no,$(CDX)),)
$(error CDX is yes or no, not '$(CDX)')
endif
ifeq ($(CDX),yes)
cycle: $(C)/index.cdxj
endif
$(C)/index.cdxj: $(C)/fetch.log
	$(call tool,cdx) -q -o '$@' $(WARC_FILES)
