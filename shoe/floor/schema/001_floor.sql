-- The casino floor, version 1 (docs/floor.md): every table's journal entries, exactly once, chained.
-- Applied by shoe.floor.migrate inside one transaction; the version table is written by the runner.

CREATE TABLE floor.tables (
    table_name  text PRIMARY KEY CHECK (table_name ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$'),
    journal_id  text,  -- the hash of entry 1 of the journal this table ships; another journal is refused
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE floor.journals (
    table_name    text NOT NULL REFERENCES floor.tables,
    journal_id    text NOT NULL CHECK (journal_id ~ '^[0-9a-f]{64}$'),
    head_seq      bigint NOT NULL DEFAULT 0,
    head_hash     text NOT NULL DEFAULT repeat('0', 64),
    head_ts       text,
    state         text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'forked')),
    first_seen    timestamptz NOT NULL DEFAULT now(),
    last_received timestamptz,
    PRIMARY KEY (table_name, journal_id)
);

-- One row per journal entry, as the table's journal stores it: data is the canonical JSON text the hash
-- covers (never re-serialised), body the same parsed for the views (NULL if PostgreSQL cannot hold it
-- as jsonb, e.g. a \u0000 in a string).
CREATE FUNCTION floor.try_jsonb(t text) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN t::jsonb;
EXCEPTION WHEN others THEN
    RETURN NULL;
END $$;

CREATE TABLE floor.entries (
    table_name  text NOT NULL,
    journal_id  text NOT NULL,
    seq         bigint NOT NULL CHECK (seq >= 1),
    ts          text NOT NULL,
    kind        text NOT NULL,
    round_id    text,
    data        text NOT NULL,
    prev_hash   text NOT NULL,
    hash        text NOT NULL,
    body        jsonb GENERATED ALWAYS AS (floor.try_jsonb(data)) STORED,
    received_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (table_name, journal_id, seq),
    FOREIGN KEY (table_name, journal_id) REFERENCES floor.journals
);
CREATE INDEX entries_by_round ON floor.entries (table_name, round_id, seq) WHERE round_id IS NOT NULL;
CREATE INDEX entries_by_kind ON floor.entries (kind, table_name, seq);

CREATE TABLE floor.alarms (
    id          bigserial PRIMARY KEY,
    raised_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    table_name  text NOT NULL,
    journal_id  text,
    seq         bigint,
    alarm       text NOT NULL CHECK (alarm IN ('fork', 'journal-replaced', 'bad-hash', 'diverged')),
    detail      text NOT NULL
);

-- Append-only, whoever asks (the owner included); the chain is what catches someone who drops these.
CREATE FUNCTION floor.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the floor''s % are append-only: % refused', TG_TABLE_NAME, TG_OP;
END $$;
CREATE TRIGGER entries_append_only BEFORE UPDATE OR DELETE ON floor.entries
    FOR EACH ROW EXECUTE FUNCTION floor.refuse_change();
CREATE TRIGGER alarms_append_only BEFORE UPDATE OR DELETE ON floor.alarms
    FOR EACH ROW EXECUTE FUNCTION floor.refuse_change();

-- The entry's hash as shoe.journal.chain computes it: sha256(prev + canonical([seq, ts, kind, round_id, data])).
-- to_json(text) escapes exactly as Python's json.dumps(ensure_ascii=False) does (", \, \b\f\n\r\t, other
-- controls as lower-case \u00xx), and data is already canonical text.
CREATE FUNCTION floor.entry_hash(prev text, seq bigint, ts text, kind text, round_id text, data text)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT encode(sha256(convert_to(prev || '[' || seq::text || ',' || to_json(ts)::text || ','
        || to_json(kind)::text || ',' || coalesce(to_json(round_id)::text, 'null') || ',' || data || ']', 'UTF8')), 'hex')
$$;

-- The receiving side: one batch of one table's journal, in seq order, checked and stored in one
-- transaction. The table's row is locked first, so concurrent shippers of one table are serialised
-- and cannot race the continuity check. Returns the status and the stored head:
--   ok        every entry is stored (a re-sent entry with the stored hash is a no-op)
--   gap       the batch starts after the head: entries are missing in between (nothing of it stored)
--   fork      an entry does not continue the stored chain, or differs from the one stored: refused, alarmed
--   bad-hash  an entry's hash does not match its contents: refused, alarmed
--   replaced  the table ships another journal than the one stored: refused, alarmed
-- Entries before the refused one stay stored; a forked journal refuses everything after.
CREATE FUNCTION floor.ship(
    p_table text, p_journal text, p_seq bigint[], p_ts text[], p_kind text[], p_round text[],
    p_data text[], p_prev text[], p_hash text[]
) RETURNS TABLE (status text, head_seq bigint, head_hash text, detail text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = floor, pg_catalog AS $$
DECLARE
    t floor.tables;
    j floor.journals;
    n int := coalesce(array_length(p_seq, 1), 0);
    stored text;
    i int;
BEGIN
    INSERT INTO floor.tables (table_name) VALUES (p_table) ON CONFLICT DO NOTHING;
    SELECT * INTO t FROM floor.tables WHERE table_name = p_table FOR UPDATE;
    IF t.journal_id IS NULL THEN
        UPDATE floor.tables SET journal_id = p_journal WHERE table_name = p_table;
        INSERT INTO floor.journals (table_name, journal_id) VALUES (p_table, p_journal);
    ELSIF t.journal_id <> p_journal THEN
        IF NOT EXISTS (SELECT 1 FROM floor.alarms a WHERE a.table_name = p_table AND a.journal_id = p_journal
                       AND a.alarm = 'journal-replaced') THEN
            INSERT INTO floor.alarms (table_name, journal_id, seq, alarm, detail) VALUES (p_table, p_journal, NULL,
                'journal-replaced', format('table %s ships journal %s, but its journal on the floor is %s '
                '(the table''s journal was replaced): refused, never merged', p_table, p_journal, t.journal_id));
        END IF;
        SELECT * INTO j FROM floor.journals WHERE table_name = p_table AND journal_id = t.journal_id;
        RETURN QUERY SELECT 'replaced'::text, j.head_seq, j.head_hash,
            format('the floor holds journal %s for table %s; this journal (%s) is refused', t.journal_id, p_table, p_journal);
        RETURN;
    END IF;
    SELECT * INTO j FROM floor.journals WHERE table_name = p_table AND journal_id = p_journal FOR UPDATE;
    IF j.state = 'forked' THEN
        RETURN QUERY SELECT 'fork'::text, j.head_seq, j.head_hash,
            (SELECT a.detail FROM floor.alarms a WHERE a.table_name = p_table AND a.journal_id = p_journal
             ORDER BY a.id DESC LIMIT 1);
        RETURN;
    END IF;
    FOR i IN 1 .. n LOOP
        IF p_seq[i] <= j.head_seq THEN
            SELECT e.hash INTO stored FROM floor.entries e
             WHERE e.table_name = p_table AND e.journal_id = p_journal AND e.seq = p_seq[i];
            IF stored = p_hash[i] THEN
                CONTINUE;  -- sent again: already stored, a no-op
            END IF;
            RETURN QUERY SELECT * FROM floor._refuse(j, p_seq[i], 'fork', format(
                'entry %s arrived with hash %s but the floor stored %s for it (edited or rewritten on the table '
                'after it was shipped): refused, never merged', p_seq[i], p_hash[i], stored));
            RETURN;
        ELSIF p_seq[i] > j.head_seq + 1 THEN
            UPDATE floor.journals SET head_seq = j.head_seq, head_hash = j.head_hash, head_ts = j.head_ts,
                last_received = clock_timestamp() WHERE table_name = p_table AND journal_id = p_journal;
            RETURN QUERY SELECT 'gap'::text, j.head_seq, j.head_hash,
                format('entries %s to %s are missing: send from entry %s', j.head_seq + 1, p_seq[i] - 1, j.head_seq + 1);
            RETURN;
        ELSIF p_prev[i] <> j.head_hash THEN
            RETURN QUERY SELECT * FROM floor._refuse(j, p_seq[i], 'fork', format(
                'entry %s does not continue the chain on the floor: its prev_hash %s is not the hash %s of entry %s '
                '(the journal was rewritten or replaced): refused, never merged',
                p_seq[i], p_prev[i], j.head_hash, j.head_seq));
            RETURN;
        ELSIF floor.entry_hash(p_prev[i], p_seq[i], p_ts[i], p_kind[i], p_round[i], p_data[i]) <> p_hash[i] THEN
            RETURN QUERY SELECT * FROM floor._refuse(j, p_seq[i], 'bad-hash', format(
                'entry %s: its hash does not match its contents (edited on the table): refused', p_seq[i]));
            RETURN;
        END IF;
        INSERT INTO floor.entries (table_name, journal_id, seq, ts, kind, round_id, data, prev_hash, hash)
        VALUES (p_table, p_journal, p_seq[i], p_ts[i], p_kind[i], p_round[i], p_data[i], p_prev[i], p_hash[i]);
        j.head_seq := p_seq[i];
        j.head_hash := p_hash[i];
        j.head_ts := p_ts[i];
    END LOOP;
    UPDATE floor.journals SET head_seq = j.head_seq, head_hash = j.head_hash, head_ts = j.head_ts,
        last_received = clock_timestamp() WHERE table_name = p_table AND journal_id = p_journal;
    RETURN QUERY SELECT 'ok'::text, j.head_seq, j.head_hash, NULL::text;
END $$;

-- A refusal: the entries stored before it stay, the journal is marked forked, the alarm is kept.
CREATE FUNCTION floor._refuse(j floor.journals, p_seq bigint, p_alarm text, p_detail text)
RETURNS TABLE (status text, head_seq bigint, head_hash text, detail text)
LANGUAGE plpgsql SET search_path = floor, pg_catalog AS $$
BEGIN
    UPDATE floor.journals SET head_seq = j.head_seq, head_hash = j.head_hash, head_ts = j.head_ts, state = 'forked',
        last_received = clock_timestamp() WHERE table_name = j.table_name AND journal_id = j.journal_id;
    INSERT INTO floor.alarms (table_name, journal_id, seq, alarm, detail)
        VALUES (j.table_name, j.journal_id, p_seq, p_alarm, p_detail);
    RETURN QUERY SELECT p_alarm, j.head_seq, j.head_hash, p_detail;
END $$;

-- The table's side of an alarm: its local journal no longer holds what the floor stored (truncated, edited,
-- replaced). The floor's chain is intact; the alarm is kept once per detail.
CREATE FUNCTION floor.report_divergence(p_table text, p_journal text, p_seq bigint, p_detail text)
RETURNS void LANGUAGE sql SECURITY DEFINER SET search_path = floor, pg_catalog AS $$
    INSERT INTO floor.alarms (table_name, journal_id, seq, alarm, detail)
    SELECT p_table, p_journal, p_seq, 'diverged', left(p_detail, 2000)
     WHERE NOT EXISTS (SELECT 1 FROM floor.alarms a WHERE a.table_name = p_table AND a.alarm = 'diverged'
                       AND a.detail = left(p_detail, 2000))
$$;

-- Where a shipper resumes: the stored head of its journal (0 and the genesis hash when none).
CREATE FUNCTION floor.head(p_table text, p_journal text)
RETURNS TABLE (head_seq bigint, head_hash text, state text, table_journal text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = floor, pg_catalog AS $$
    SELECT coalesce(j.head_seq, 0), coalesce(j.head_hash, repeat('0', 64)), coalesce(j.state, 'new'), t.journal_id
      FROM (SELECT p_table AS table_name) q
      LEFT JOIN floor.tables t ON t.table_name = q.table_name
      LEFT JOIN floor.journals j ON j.table_name = q.table_name AND j.journal_id = p_journal
$$;

-- Views for the departments (docs/floor.md). A round is live until its round-closed entry is stored.
CREATE VIEW floor.rounds AS
SELECT e.table_name, e.journal_id, e.round_id, min(e.seq) AS first_seq, max(e.seq) AS last_seq,
       count(*) AS entries,
       min(e.ts) FILTER (WHERE e.kind = 'round-opened') AS opened,
       max(e.body ->> 'game') FILTER (WHERE e.kind = 'round-opened') AS game,
       max(e.body ->> 'jurisdiction') FILTER (WHERE e.kind = 'round-opened') AS jurisdiction,
       max(coalesce(e.body ->> 'outcome', 'closed')) FILTER (WHERE e.kind = 'round-closed') AS closed,
       max(e.ts) FILTER (WHERE e.kind = 'round-closed') AS closed_at,
       bool_and(e.kind <> 'round-closed') AS live
  FROM floor.entries e WHERE e.round_id IS NOT NULL
 GROUP BY e.table_name, e.journal_id, e.round_id;

CREATE VIEW floor.cards AS
SELECT e.table_name, e.journal_id, e.round_id, e.seq, e.ts,
       (e.body ->> 'index')::int AS card_index, e.body ->> 'target' AS target, (e.body ->> 'seat')::int AS seat,
       e.body ->> 'card' AS card, e.body ->> 'face' AS face, e.body ->> 'status' AS status
  FROM floor.entries e WHERE e.kind = 'card';

CREATE VIEW floor.settlements AS
SELECT table_name, journal_id, round_id, seq, ts, body FROM floor.entries WHERE kind = 'settlement';
CREATE VIEW floor.faults AS
SELECT table_name, journal_id, round_id, seq, ts, body ->> 'event' AS event, body FROM floor.entries WHERE kind = 'fault';
CREATE VIEW floor.irregularities AS
SELECT table_name, journal_id, round_id, seq, ts, body ->> 'action' AS action, body
  FROM floor.entries WHERE kind = 'irregularity';

-- The pit sees every round's progress but no card (nor any entry's data) of a round still live.
CREATE VIEW floor.pit_entries AS
SELECT e.table_name, e.journal_id, e.seq, e.ts, e.kind, e.round_id,
       CASE WHEN e.round_id IS NULL OR NOT r.live THEN e.body END AS body
  FROM floor.entries e
  LEFT JOIN floor.rounds r ON r.table_name = e.table_name AND r.journal_id = e.journal_id AND r.round_id = e.round_id
 WHERE e.kind <> 'card' OR NOT r.live;
CREATE VIEW floor.pit_cards AS
SELECT c.* FROM floor.cards c
  JOIN floor.rounds r ON r.table_name = c.table_name AND r.journal_id = c.journal_id AND r.round_id = c.round_id
 WHERE NOT r.live;
CREATE VIEW floor.pit_rounds AS SELECT * FROM floor.rounds;

-- Roles (group roles, NOLOGIN: give a login role membership). Least privilege:
--   floor_shipper  only floor.ship (it can only append) and floor.head; no table, no view
--   floor_auditor  reads everything
--   floor_pit      the rounds, the alarms, and entries and cards without those of a live round
DO $$
DECLARE r text;
BEGIN
    FOREACH r IN ARRAY ARRAY['floor_shipper', 'floor_auditor', 'floor_pit'] LOOP
        BEGIN
            IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
                EXECUTE format('CREATE ROLE %I NOLOGIN', r);
            END IF;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN
            NULL;  -- created meanwhile by a migration of another database of the same cluster
        END;
    END LOOP;
END $$;

REVOKE ALL ON SCHEMA floor FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA floor FROM PUBLIC;
GRANT USAGE ON SCHEMA floor TO floor_shipper, floor_auditor, floor_pit;
GRANT EXECUTE ON FUNCTION floor.ship(text, text, bigint[], text[], text[], text[], text[], text[], text[]),
    floor.head(text, text), floor.report_divergence(text, text, bigint, text) TO floor_shipper;
GRANT SELECT ON ALL TABLES IN SCHEMA floor TO floor_auditor;
GRANT EXECUTE ON FUNCTION floor.try_jsonb(text), floor.entry_hash(text, bigint, text, text, text, text) TO floor_auditor;
GRANT SELECT ON floor.pit_entries, floor.pit_cards, floor.pit_rounds, floor.alarms TO floor_pit;
