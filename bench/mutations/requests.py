"""Mutations of the request log (issue 40, point 2): each breaks one rule; `bench/mutate.py`
shows that the named tests then fail. (name, file, text, replacement, cargo test arguments)
"""

L = "server-mock/src/request_log.rs"
S = "server-mock/src/store/sqlite/requests.rs"
B = "server-mock/src/store/sqlite/request_batches.rs"
U = "--lib store::sqlite::requests"
P = "server-mock/src/store/postgres/requests.rs"
R = "--test requests"
M = [
 ("an unauthenticated entry is dropped, an authenticated one kept", L, "if entry.workspace_id.is_empty() {", "if !entry.workspace_id.is_empty() {", R),
 ("the caller's credential is noted", "server-mock/src/chat/mod.rs", "logged.caller(&principal.workspace_id, &principal.credential_id);", "logged.caller(&principal.workspace_id, &principal.workspace_id);", R),
 ("the answering model and its cost are noted", "server-mock/src/chat/accounting.rs", "logged.answered_by(&self.model.id, deployment, &self.reason, spent);", "let _ = (deployment, spent);", R),
 ("a stream's first token is timed", "server-mock/src/chat/stream.rs", "logged.first_token();", "let _ = logged;", R),
 ("the status answered is noted", "server-mock/src/http/edge.rs", "logged.status(status, code);", "logged.status(200, code);", R),
 ("a refusal's code is noted", "server-mock/src/http/edge.rs", "let code = response.extensions().get::<ErrorCode>().map(|code| code.0);", "let code: Option<&str> = None;", R),
 ("newest first (SQLite)", S, "ORDER BY r.created_at DESC, r.seq DESC LIMIT ?9", "ORDER BY r.created_at ASC, r.seq DESC LIMIT ?9", R + " sqlite"),
 ("newest first (PostgreSQL)", P, "ORDER BY r.created_at DESC, r.seq DESC LIMIT $9", "ORDER BY r.created_at ASC, r.seq DESC LIMIT $9", R + " postgres"),
 ("the status class filter (SQLite)", S, "AND (?4 IS NULL OR r.status BETWEEN ?4 AND ?5)", "AND (?4 IS NULL OR r.status >= ?4 OR ?5 IS NULL)", R + " sqlite"),
 ("the status class filter (PostgreSQL)", P, "AND ($4::int8 IS NULL OR r.status BETWEEN $4 AND $5)", "AND ($4::int8 IS NULL OR r.status >= $4 OR $5::int8 IS NULL)", R + " postgres"),
 ("until is exclusive of later arrivals (SQLite)", S, "r.created_at < ?7))", "r.created_at > ?7))", R + " sqlite"),
 ("the model filter takes the answering model (PostgreSQL)", P, "OR r.routed_model = $3)", "OR r.routed_model = $3 OR true)", R + " postgres"),
 ("retention deletes only older entries (SQLite)", B, "b.first_at < ?1 AND b.last_at < ?1 LIMIT ?2", "b.first_at < ?1 + 86400000000 * 25 AND b.last_at < ?1 + 86400000000 * 25 LIMIT ?2", R + " retention_deletes_exactly_the_entries_older_than_it::sqlite"),
 ("retention deletes only older entries (PostgreSQL)", P, "WHERE created_at < $1 LIMIT $2", "WHERE created_at < $1 + interval '25 days' LIMIT $2", R + " retention_deletes_exactly_the_entries_older_than_it::postgres"),
 ("retention deletes at all (SQLite)", B, '"DELETE FROM request_log_batches WHERE seq IN ({EXPIRED}) RETURNING entries"', '"DELETE FROM request_log_batches WHERE false AND seq IN ({EXPIRED}) RETURNING entries"', R + " retention_deletes_exactly_the_entries_older_than_it::sqlite"),
 ("the credential's name is joined", S, "COALESCE(t.name, k.name)", "COALESCE(k.name, NULL)", R + " sqlite"),
 ("bodies are redacted", L, "let redacted = crate::redact::redact(text);", "let redacted = std::borrow::Cow::Borrowed(text);", R + " bodies"),
 ("bodies are cut at the cap", L, "if redacted.len() <= cap {", "if redacted.len() <= usize::MAX {", R + " bodies"),
 ("bodies only when the workspace keeps them", L, ".then_some(log.body_cap);", ".then_some(log.body_cap).or(Some(log.body_cap));", R + " bodies"),
 ("a workspace's choice wins over the server's default", "server-mock/src/request_log/choices.rs", ".map_or(self.default_store_bodies, |(on, _)| *on)", ".map_or(self.default_store_bodies, |_| self.default_store_bodies)", "--test settings the_server_default_yields_to_a_workspace_that_turned_bodies_off_even_after_a_restart"),
 ("this instance follows its own change at once", "server-mock/src/settings/mod.rs", "        choices.remember(record);\n", "", "--test settings bodies_are_kept_only_while_the_workspace_turns_them_on_and_each_change_is_audited"),
 ("a server's id is found where it says it arrived (SQLite)", S, "AND r.created_at = ?3 AND r.id = ?2", "AND r.created_at = ?3 + 1 AND r.id = ?2", R + " an_entry_is_found_by_the_id_its_answer_carried_even_when_a_client_sends_it_again::sqlite"),
 ("a client's id is found among the chosen ones (SQLite)", L, "chosen: made.is_none(),", "chosen: false,", R + " each_gateway_request_is_logged_newest_first_with_who_answered_and_what_it_cost::sqlite"),
 ("a client's id of the server's shape still arrives now", "server-mock/src/http/request_id.rs", "Some(id) => (id, None),", "Some(id) => {\n            let at = crate::secrets::request_id_time(&id);\n            (id, at)\n        }", R + " an_entry_is_found_by_the_id_its_answer_carried_even_when_a_client_sends_it_again::sqlite"),
 ("the newer of a made and a chosen entry is found (SQLite)", S, "(Some(made), Some(chosen)) if chosen.created_at > made.created_at => Ok(chosen),", "", R + " an_entry_is_found_by_the_id_its_answer_carried_even_when_a_client_sends_it_again::sqlite"),
]
M += [
 ("a stream's kept text is its response body", "server-mock/src/chat/stream/kept.rs", "logged.response_body(&messages);", "let _ = (logged, &messages);", R + " a_streamed_answers_text"),
]
M += [
 ("a batch keeps each field in the view's position", B, "fields.text(e.model.as_deref());\n    fields.text(e.routed_model.as_deref());", "fields.text(e.routed_model.as_deref());\n    fields.text(e.model.as_deref());", U),
 ("a batch spans at most a minute", B, "if high - low >= SPAN {", "if high - low >= i64::MAX {", U),
 ("a straddling batch keeps its newer entries", B, "data = (SELECT json_group_array(json(j.value)) FROM json_each(data) j\n                                 WHERE j.value ->> 1 >= ?1),", "data = data,", U),
 ("retention deletes the chosen ids it passes", B, '"DELETE FROM request_log_chosen WHERE rowid IN ({CHOSEN_EXPIRED})"', '"DELETE FROM request_log_chosen WHERE false AND rowid IN ({CHOSEN_EXPIRED})"', U),
]
M += [
 ("a batch's string that needs escaping is escaped", B, "if plain(text.as_bytes()) {", "if true {", "--lib request_batches"),
 ("an unset field before a set one is written as null", B, "None => self.nulls += 1,\n        }\n    }\n\n    fn int", "None => {}\n        }\n    }\n\n    fn int", "--lib request_batches"),
 ("a text's last bytes are looked at", B, "text.chunks_exact(8).all(clean) && clean(&text[text.len() - 8..])", "text.chunks_exact(8).all(clean)", "--lib request_batches"),
 ('a batch\'s string with a quote needs escaping', B, "| equal(w, b'\"') |", "|", "--lib request_batches"),
]
