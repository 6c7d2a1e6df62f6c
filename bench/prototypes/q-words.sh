#!/usr/bin/env bash
# Prototype for issue 2's open `q` target (not the app's code path): would a per-organization word index
# that keeps the list's sort key make a tag search meet p99 <= 50 ms at 10 connections?
#
# It builds `proto_tag_words (organization_id, word, name_key, id)` from the tags bench's seed (run
# `npm run bench -- tags` once first), checks that word-start search returns exactly what today's
# substring ILIKE returns for the bench's eight terms (every organization, pages 1-4), then runs both
# statements under pgbench: 10 clients, random organization, page and term, the app's page shape (id
# window of 25, rows, count capped at 1000). Without the app's transaction and row level security, so
# both sides lack the same part. The table is dropped at the end.
#
#   bash bench/prototypes/q-words.sh            (BENCH_DATABASE_URL as for npm run bench; SECONDS_PER_SIDE=20)
set -euo pipefail
url=${BENCH_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/firewatch_bench}
secs=${SECONDS_PER_SIDE:-20}
terms=(latency kafka redis-fail timeout payments oauth-cert rollback dns-q)
work=$(mktemp -d)
trap 'psql -q "$url" -c "drop table if exists proto_tag_words" >/dev/null; rm -rf "$work"' EXIT

echo "building proto_tag_words (a row per distinct word of each tag name)..."
psql -q -v ON_ERROR_STOP=1 "$url" <<'SQL'
drop table if exists proto_tag_words;
create table proto_tag_words (organization_id int not null, word text collate "C" not null, name_key text collate "C" not null, id int not null);
insert into proto_tag_words
  select t.organization_id, w.word, lower(t.name) collate "C", t.id
  from tags t cross join lateral (select distinct x as word from unnest(regexp_split_to_array(lower(t.name), '[^a-z0-9]+')) x where x <> '') w;
-- Matches in name order, and a probe for the other words of a many-word search; both index-only.
create index proto_words_order on proto_tag_words (organization_id, word, name_key, id);
create index proto_words_probe on proto_tag_words (organization_id, id, word);
vacuum analyze proto_tag_words;
SQL
psql -At "$url" -c "select 'rows ' || count(*) || ', table ' || pg_size_pretty(pg_relation_size('proto_tag_words')) || ', indexes ' || pg_size_pretty(pg_indexes_size('proto_tag_words')) from proto_tag_words"

next_char() { printf "\\$(printf '%03o' $(($(printf '%d' "'$1") + 1)))"; }
# The word range of a word start: 'fail' -> word >= 'fail' and word < 'faim'.
starts() { local last=${1: -1}; echo "$2.word >= '$1' and $2.word < '${1:0:-1}$(next_char "$last")'"; }

for term in "${terms[@]}"; do
  where="organization_id = :org and name ilike '%$term%'"
  page='select t.*, counted.total from (select least(count(*)::int, 1000) as total from (%s limit 1001) capped) counted left join tags t on t.organization_id = :org and t.id = any(array(%s)) order by lower(t.name) collate "C", t.id;'
  printf "\\\\set org random(2, 11)\n\\\\set off 25 * random(0, 3)\n$page\n" "select 1 from tags where $where" "select id from tags where $where order by lower(name) collate \"C\", id limit 25 offset :off" >"$work/ilike-$term.sql"
  IFS=- read -r -a words <<<"$term"
  if [ ${#words[@]} -eq 1 ]; then
    # One word start: every word beginning with it, each tag once, in name order.
    match="select id, name_key from proto_tag_words w where w.organization_id = :org and $(starts "$term" w)"
    ids="select distinct id from ($match) m"
    window="select id from (select distinct on (name_key, id) name_key, id from ($match) m order by name_key, id) s limit 25 offset :off"
  else
    # Whole words then a word start: walk the first word in name order, probe the others.
    probes="exists (select 1 from proto_tag_words p where p.organization_id = :org and p.id = w.id and $(starts "${words[-1]}" p))"
    for middle in "${words[@]:1:${#words[@]}-2}"; do probes+=" and exists (select 1 from proto_tag_words p where p.organization_id = :org and p.id = w.id and p.word = '$middle')"; done
    ids="select w.id from proto_tag_words w where w.organization_id = :org and w.word = '${words[0]}' and $probes"
    window="$ids order by w.name_key, w.id limit 25 offset :off"
  fi
  printf "\\\\set org random(2, 11)\n\\\\set off 25 * random(0, 3)\n$page\n" "$ids" "$window" >"$work/words-$term.sql"
done

echo "checking that both return the same pages (8 terms x 10 organizations x 4 pages)..."
orgs=$(psql -At "$url" -c "select string_agg(id::text, ' ') from organizations where slug like 'bench-%'")
for term in "${terms[@]}"; do
  for org in $orgs; do
    for off in 0 25 50 75; do
      a=$(tail -n 1 "$work/ilike-$term.sql" | psql -At -v org="$org" -v off="$off" "$url" | md5sum)
      b=$(tail -n 1 "$work/words-$term.sql" | psql -At -v org="$org" -v off="$off" "$url" | md5sum)
      [ "$a" = "$b" ] || { echo "different results: $term, organization $org, offset $off"; exit 1; }
    done
  done
done
echo "same results"

measure() {
  local args=() side=$1
  for term in "${terms[@]}"; do args+=(-f "$work/$side-$term.sql@1"); done
  (cd "$work" && rm -f pgbench_log.* && pgbench -n -c 10 -j 2 -T "$secs" -l "${args[@]}" "$url" >"$side.out" 2>&1)
  local tps; tps=$(grep -Po '^tps = \K[0-9.]+' "$work/$side.out")
  cat "$work"/pgbench_log.* | awk '{print $3 / 1000}' | sort -n |
    awk -v side="$side" -v tps="$tps" '{a[NR] = $1} END {printf "%-6s %8.0f %8.1f %8.1f %8.1f\n", side, tps, a[int(NR * 0.5)], a[int(NR * 0.99)], a[NR]}'
}
echo "pgbench, 10 clients, ${secs} s per side; load average $(cut -d' ' -f1-3 /proc/loadavg) before"
printf "%-6s %8s %8s %8s %8s\n" side 'req/s' 'p50 ms' 'p99 ms' 'max ms'
measure ilike
measure words
