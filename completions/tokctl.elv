
use builtin;
use str;

set edit:completion:arg-completer[tokctl] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'tokctl'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'tokctl'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand login 'Save a base URL and API key as a profile (asks on a terminal; --with-token reads stdin)'
            cand config 'Show and change the configuration file and its profiles'
            cand tokens 'Create, list, inspect, rotate and revoke tokens'
            cand keys 'Create, list and revoke the workspace''s API keys'
            cand audit 'Read the workspace audit log'
            cand scopes 'List every scope a token can hold'
            cand chat 'Chat through the gateway: one answer for PROMPT (or piped stdin), or a session on a terminal'
            cand models 'List the gateway''s models with prices, quality and latency'
            cand usage 'Show the credit ledger: totals by day and model, with a chart on a terminal'
            cand requests 'Read the gateway''s request log: who asked, which model answered, timings and cost'
            cand settings 'Show or change the workspace''s settings: whether the request log keeps bodies'
            cand webhooks 'Configure webhook endpoints, receive events locally, verify signatures'
            cand x402 'Show, set or remove the workspace''s x402 terms: what agents naming an agent_wallet pay'
            cand scan 'Find leaked secrets (tokctl''s and providers'' keys) in files, stdin or git history, and optionally revoke tokctl''s'
            cand completions 'Print a shell completion script'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'tokctl;login'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand --with-token 'Read the API key from standard input (for CI)'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;config'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand show 'Show the settings in effect and where each comes from (the key is redacted)'
            cand set 'Set KEY (base_url, chat_base_url, api_key) in the current profile'
            cand profiles 'List profiles; the current one is marked'
            cand use 'Make PROFILE the current profile'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'tokctl;config;show'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;config;set'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;config;profiles'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;config;use'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;config;help'= {
            cand show 'Show the settings in effect and where each comes from (the key is redacted)'
            cand set 'Set KEY (base_url, chat_base_url, api_key) in the current profile'
            cand profiles 'List profiles; the current one is marked'
            cand use 'Make PROFILE the current profile'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'tokctl;config;help;show'= {
        }
        &'tokctl;config;help;set'= {
        }
        &'tokctl;config;help;profiles'= {
        }
        &'tokctl;config;help;use'= {
        }
        &'tokctl;config;help;help'= {
        }
        &'tokctl;tokens'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand create 'Create a token and print its secret (shown once)'
            cand list 'List tokens (every page)'
            cand get 'Show one token by id or name (a revoked token too)'
            cand show 'Show one token by id or name (a revoked token too)'
            cand rotate 'Replace a token''s secret and print the new one; the old one stops working at once, or after --overlap'
            cand limit 'Set, change or remove a token''s spending limit (the only change a token takes in place)'
            cand set-limit 'Set, change or remove a token''s spending limit (the only change a token takes in place)'
            cand revoke 'Revoke tokens for good (asks first on a terminal; --yes otherwise)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'tokctl;tokens;create'= {
            cand -s 'Scope to grant (repeat, or a comma list); see `tokctl scopes`'
            cand --scope 'Scope to grant (repeat, or a comma list); see `tokctl scopes`'
            cand --expires-in 'Expire after this long, e.g. 30d, 12h, 90m (a day is 24 h; years and months are not taken, as their length varies: 365d)'
            cand --expires-at 'Expire at this RFC 3339 time, e.g. 2030-01-01T00:00:00Z'
            cand --credit-limit 'The most it may spend through the chat gateway per period, in credits (exact, e.g. 25 or 0.5)'
            cand --limit-reset 'When the limit''s period starts again, on the UTC calendar [default: never]'
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;tokens;list'= {
            cand --status 'Only tokens with this status'
            cand --expiring-within 'Only tokens expiring within this long, e.g. 7d'
            cand --stale 'Only tokens unused for this long (never-used tokens count from creation), e.g. 90d'
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;tokens;get'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;tokens;show'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;tokens;rotate'= {
            cand --overlap 'Let the old secret work this much longer (at most 24h), e.g. 10m, so machines can switch first; a later rotation ends it'
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;tokens;limit'= {
            cand --credit-limit 'The most it may spend per period, in credits (exact)'
            cand --reset 'When the period starts again (the spend is always what the new period holds)'
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand --remove 'Remove the limit'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;tokens;set-limit'= {
            cand --credit-limit 'The most it may spend per period, in credits (exact)'
            cand --reset 'When the period starts again (the spend is always what the new period holds)'
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand --remove 'Remove the limit'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;tokens;revoke'= {
            cand --stale 'Also revoke every active token unused for this long, e.g. 90d'
            cand --from-file 'Also revoke the ids or names in FILE, one a line (`-` for stdin)'
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand --expired 'Also revoke every expired token'
            cand -y 'Do not ask for confirmation (needed when not on a terminal)'
            cand --yes 'Do not ask for confirmation (needed when not on a terminal)'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;tokens;help'= {
            cand create 'Create a token and print its secret (shown once)'
            cand list 'List tokens (every page)'
            cand get 'Show one token by id or name (a revoked token too)'
            cand rotate 'Replace a token''s secret and print the new one; the old one stops working at once, or after --overlap'
            cand limit 'Set, change or remove a token''s spending limit (the only change a token takes in place)'
            cand revoke 'Revoke tokens for good (asks first on a terminal; --yes otherwise)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'tokctl;tokens;help;create'= {
        }
        &'tokctl;tokens;help;list'= {
        }
        &'tokctl;tokens;help;get'= {
        }
        &'tokctl;tokens;help;rotate'= {
        }
        &'tokctl;tokens;help;limit'= {
        }
        &'tokctl;tokens;help;revoke'= {
        }
        &'tokctl;tokens;help;help'= {
        }
        &'tokctl;keys'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand create 'Create an API key and print its secret (shown once)'
            cand list 'List API keys (every page)'
            cand revoke 'Revoke an API key for good (asks first on a terminal; --yes otherwise)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'tokctl;keys;create'= {
            cand -s 'Scope to grant (repeat, or a comma list); see `tokctl scopes`'
            cand --scope 'Scope to grant (repeat, or a comma list); see `tokctl scopes`'
            cand --expires-in 'Expire after this long, e.g. 30d, 12h, 90m (a day is 24 h; years and months are not taken, as their length varies: 365d)'
            cand --expires-at 'Expire at this RFC 3339 time, e.g. 2030-01-01T00:00:00Z'
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;keys;list'= {
            cand --status 'Only keys with this status'
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;keys;revoke'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -y 'Do not ask for confirmation (needed when not on a terminal)'
            cand --yes 'Do not ask for confirmation (needed when not on a terminal)'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;keys;help'= {
            cand create 'Create an API key and print its secret (shown once)'
            cand list 'List API keys (every page)'
            cand revoke 'Revoke an API key for good (asks first on a terminal; --yes otherwise)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'tokctl;keys;help;create'= {
        }
        &'tokctl;keys;help;list'= {
        }
        &'tokctl;keys;help;revoke'= {
        }
        &'tokctl;keys;help;help'= {
        }
        &'tokctl;audit'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand list 'List audit entries, newest first (every page)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'tokctl;audit;list'= {
            cand --token 'Only entries about this token (id or name)'
            cand --key 'Only entries about this API key (id or name)'
            cand --action 'Only entries with this action, e.g. token.rotated'
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;audit;help'= {
            cand list 'List audit entries, newest first (every page)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'tokctl;audit;help;list'= {
        }
        &'tokctl;audit;help;help'= {
        }
        &'tokctl;scopes'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;chat'= {
            cand -m 'A model id, or auto, auto-fast, auto-cheap'
            cand --model 'A model id, or auto, auto-fast, auto-cheap'
            cand --system 'A system message sent first'
            cand --max-tokens 'Most tokens in the answer'
            cand --temperature 'Sampling temperature, 0 to 2'
            cand --budget 'Most credits the request may consume (an exact decimal, e.g. 0.05)'
            cand --cost-weight 'How much price counts for auto routing, 0 to 1'
            cand --quality-weight 'How much quality counts for auto routing, 0 to 1'
            cand --wallet 'Agent wallet (0x + 40 hex digits) recorded for settlement'
            cand --wallet-key-file 'Pay the gateway''s x402 offers with the wallet whose private key is in FILE (mode 0600; the key is never printed): the request names that wallet, and a 402 is paid once'
            cand --max-payment 'The most one payment may be, in atomic units of the token the server asks for (50000 is 0.05 USDC); a larger offer is refused, unsigned'
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand --stream 'Print the answer as it arrives'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;models'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;usage'= {
            cand --token 'Only the requests made with this token (id tok_... or name)'
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;requests'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand list 'List gateway requests, newest first (--follow to keep printing new ones)'
            cand show 'Show one request by the id its answer carried (x-request-id)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'tokctl;requests;list'= {
            cand --token 'Only requests this token sent (id or name)'
            cand --key 'Only requests this API key sent (id or name)'
            cand --model 'Only requests naming this model or answered by it'
            cand --status 'Only requests answered with this status class or status: 2xx, 4xx, 5xx, 429'
            cand --since 'Only requests that arrived since this time: RFC 3339, or a length of time ago (1h, 2d)'
            cand --until 'Only requests that arrived before this time: RFC 3339, or a length of time ago'
            cand --session 'Only requests of this agent session'
            cand -L 'Most requests listed (the newest)'
            cand --limit 'Most requests listed (the newest)'
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -f 'After the list, print each new request as it is logged, until interrupted'
            cand --follow 'After the list, print each new request as it is logged, until interrupted'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;requests;show'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;requests;help'= {
            cand list 'List gateway requests, newest first (--follow to keep printing new ones)'
            cand show 'Show one request by the id its answer carried (x-request-id)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'tokctl;requests;help;list'= {
        }
        &'tokctl;requests;help;show'= {
        }
        &'tokctl;requests;help;help'= {
        }
        &'tokctl;settings'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand show 'Show the workspace''s settings (needs settings:read)'
            cand set 'Change the workspace''s settings; what is not named is kept (needs settings:write)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'tokctl;settings;show'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;settings;set'= {
            cand --store-bodies 'Keep each gateway request''s body and a whole answer''s message in the request log, secrets redacted and cut at the server''s cap (true), or keep no body (false). Audited'
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;settings;help'= {
            cand show 'Show the workspace''s settings (needs settings:read)'
            cand set 'Change the workspace''s settings; what is not named is kept (needs settings:write)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'tokctl;settings;help;show'= {
        }
        &'tokctl;settings;help;set'= {
        }
        &'tokctl;settings;help;help'= {
        }
        &'tokctl;webhooks'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand create 'Add an endpoint and print its signing secret (shown once)'
            cand list 'List endpoints'
            cand get 'Show one endpoint'
            cand delete 'Delete an endpoint'
            cand test 'Send a webhook.test event to an endpoint'
            cand deliveries 'Show an endpoint''s delivery attempts'
            cand listen 'Receive events on 127.0.0.1: verify each, answer 2xx or 401, print it, maybe forward it'
            cand verify 'Check a signature against the body on stdin: exit 0 when it matches, 1 when not'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'tokctl;webhooks;create'= {
            cand -e 'Event type to receive (repeat): token.rotated, token.expiring, token.limit_threshold, token.limit_reached'
            cand --event 'Event type to receive (repeat): token.rotated, token.expiring, token.limit_threshold, token.limit_reached'
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;webhooks;list'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;webhooks;get'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;webhooks;delete'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;webhooks;test'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;webhooks;deliveries'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;webhooks;listen'= {
            cand --port 'Port to listen on (0 picks a free one)'
            cand --secret 'The endpoint''s signing secret'
            cand --forward-to 'Also POST each verified event, with its headers, to this URL'
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;webhooks;verify'= {
            cand --secret 'The endpoint''s signing secret'
            cand --signature 'The x-service-signature header value (sha256=...)'
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;webhooks;help'= {
            cand create 'Add an endpoint and print its signing secret (shown once)'
            cand list 'List endpoints'
            cand get 'Show one endpoint'
            cand delete 'Delete an endpoint'
            cand test 'Send a webhook.test event to an endpoint'
            cand deliveries 'Show an endpoint''s delivery attempts'
            cand listen 'Receive events on 127.0.0.1: verify each, answer 2xx or 401, print it, maybe forward it'
            cand verify 'Check a signature against the body on stdin: exit 0 when it matches, 1 when not'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'tokctl;webhooks;help;create'= {
        }
        &'tokctl;webhooks;help;list'= {
        }
        &'tokctl;webhooks;help;get'= {
        }
        &'tokctl;webhooks;help;delete'= {
        }
        &'tokctl;webhooks;help;test'= {
        }
        &'tokctl;webhooks;help;deliveries'= {
        }
        &'tokctl;webhooks;help;listen'= {
        }
        &'tokctl;webhooks;help;verify'= {
        }
        &'tokctl;webhooks;help;help'= {
        }
        &'tokctl;x402'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand show 'Show the workspace''s x402 terms ("off" when it takes no x402 payments)'
            cand set 'Set the workspace''s x402 terms (replacing any): chat requests naming an agent_wallet must then carry a payment'
            cand disable 'Stop taking x402 payments (asks first on a terminal; --yes otherwise)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'tokctl;x402;show'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;x402;set'= {
            cand --pay-to 'The address agents pay (0x and 40 hexadecimal digits)'
            cand --network 'CAIP-2 network of the token, e.g. eip155:84532 (Base Sepolia) or eip155:8453 (Base)'
            cand --asset 'The token contract (USDC on Base Sepolia: 0x036CbD53842c5426634e7929541eC2318f3dCF7e)'
            cand --asset-name 'The token''s EIP-712 domain name, as its contract has it (USDC, USD Coin)'
            cand --asset-version 'The token''s EIP-712 domain version (2 for USDC)'
            cand --decimals 'The token''s decimals (6 for USDC)'
            cand --credit-price 'What one credit costs, in the token''s atomic units: 10000 with 6 decimals is 0.01'
            cand --facilitator 'The facilitator that verifies and settles payments'
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;x402;disable'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -y 'Do not ask for confirmation (needed when not on a terminal)'
            cand --yes 'Do not ask for confirmation (needed when not on a terminal)'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;x402;help'= {
            cand show 'Show the workspace''s x402 terms ("off" when it takes no x402 payments)'
            cand set 'Set the workspace''s x402 terms (replacing any): chat requests naming an agent_wallet must then carry a payment'
            cand disable 'Stop taking x402 payments (asks first on a terminal; --yes otherwise)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'tokctl;x402;help;show'= {
        }
        &'tokctl;x402;help;set'= {
        }
        &'tokctl;x402;help;disable'= {
        }
        &'tokctl;x402;help;help'= {
        }
        &'tokctl;scan'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand --git-history 'Scan the added lines of every commit of the repository at each path (`git log -p --all`) instead of the files as they are now'
            cand --no-ignore 'Also scan files that .gitignore and .ignore exclude'
            cand --revoke 'Send every tokctl secret found to the revocation endpoint, which needs no API key (asks first on a terminal; --yes otherwise). Providers'' keys are reported, not sent'
            cand -y 'Revoke without asking'
            cand --yes 'Revoke without asking'
            cand --include-own-key 'Also revoke the API key this CLI is configured with when it is among the secrets found (left out otherwise, or asked about on a terminal)'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;completions'= {
            cand -o 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --output 'Output format: table on a terminal, tab-separated lines when piped, or json'
            cand --profile 'Profile to use [env: TOKCTL_PROFILE]'
            cand --base-url 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]'
            cand -q 'Print only the value a script needs (the secret, or ids)'
            cand --quiet 'Print only the value a script needs (the secret, or ids)'
            cand -v 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand --verbose 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'tokctl;help'= {
            cand login 'Save a base URL and API key as a profile (asks on a terminal; --with-token reads stdin)'
            cand config 'Show and change the configuration file and its profiles'
            cand tokens 'Create, list, inspect, rotate and revoke tokens'
            cand keys 'Create, list and revoke the workspace''s API keys'
            cand audit 'Read the workspace audit log'
            cand scopes 'List every scope a token can hold'
            cand chat 'Chat through the gateway: one answer for PROMPT (or piped stdin), or a session on a terminal'
            cand models 'List the gateway''s models with prices, quality and latency'
            cand usage 'Show the credit ledger: totals by day and model, with a chart on a terminal'
            cand requests 'Read the gateway''s request log: who asked, which model answered, timings and cost'
            cand settings 'Show or change the workspace''s settings: whether the request log keeps bodies'
            cand webhooks 'Configure webhook endpoints, receive events locally, verify signatures'
            cand x402 'Show, set or remove the workspace''s x402 terms: what agents naming an agent_wallet pay'
            cand scan 'Find leaked secrets (tokctl''s and providers'' keys) in files, stdin or git history, and optionally revoke tokctl''s'
            cand completions 'Print a shell completion script'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'tokctl;help;login'= {
        }
        &'tokctl;help;config'= {
            cand show 'Show the settings in effect and where each comes from (the key is redacted)'
            cand set 'Set KEY (base_url, chat_base_url, api_key) in the current profile'
            cand profiles 'List profiles; the current one is marked'
            cand use 'Make PROFILE the current profile'
        }
        &'tokctl;help;config;show'= {
        }
        &'tokctl;help;config;set'= {
        }
        &'tokctl;help;config;profiles'= {
        }
        &'tokctl;help;config;use'= {
        }
        &'tokctl;help;tokens'= {
            cand create 'Create a token and print its secret (shown once)'
            cand list 'List tokens (every page)'
            cand get 'Show one token by id or name (a revoked token too)'
            cand rotate 'Replace a token''s secret and print the new one; the old one stops working at once, or after --overlap'
            cand limit 'Set, change or remove a token''s spending limit (the only change a token takes in place)'
            cand revoke 'Revoke tokens for good (asks first on a terminal; --yes otherwise)'
        }
        &'tokctl;help;tokens;create'= {
        }
        &'tokctl;help;tokens;list'= {
        }
        &'tokctl;help;tokens;get'= {
        }
        &'tokctl;help;tokens;rotate'= {
        }
        &'tokctl;help;tokens;limit'= {
        }
        &'tokctl;help;tokens;revoke'= {
        }
        &'tokctl;help;keys'= {
            cand create 'Create an API key and print its secret (shown once)'
            cand list 'List API keys (every page)'
            cand revoke 'Revoke an API key for good (asks first on a terminal; --yes otherwise)'
        }
        &'tokctl;help;keys;create'= {
        }
        &'tokctl;help;keys;list'= {
        }
        &'tokctl;help;keys;revoke'= {
        }
        &'tokctl;help;audit'= {
            cand list 'List audit entries, newest first (every page)'
        }
        &'tokctl;help;audit;list'= {
        }
        &'tokctl;help;scopes'= {
        }
        &'tokctl;help;chat'= {
        }
        &'tokctl;help;models'= {
        }
        &'tokctl;help;usage'= {
        }
        &'tokctl;help;requests'= {
            cand list 'List gateway requests, newest first (--follow to keep printing new ones)'
            cand show 'Show one request by the id its answer carried (x-request-id)'
        }
        &'tokctl;help;requests;list'= {
        }
        &'tokctl;help;requests;show'= {
        }
        &'tokctl;help;settings'= {
            cand show 'Show the workspace''s settings (needs settings:read)'
            cand set 'Change the workspace''s settings; what is not named is kept (needs settings:write)'
        }
        &'tokctl;help;settings;show'= {
        }
        &'tokctl;help;settings;set'= {
        }
        &'tokctl;help;webhooks'= {
            cand create 'Add an endpoint and print its signing secret (shown once)'
            cand list 'List endpoints'
            cand get 'Show one endpoint'
            cand delete 'Delete an endpoint'
            cand test 'Send a webhook.test event to an endpoint'
            cand deliveries 'Show an endpoint''s delivery attempts'
            cand listen 'Receive events on 127.0.0.1: verify each, answer 2xx or 401, print it, maybe forward it'
            cand verify 'Check a signature against the body on stdin: exit 0 when it matches, 1 when not'
        }
        &'tokctl;help;webhooks;create'= {
        }
        &'tokctl;help;webhooks;list'= {
        }
        &'tokctl;help;webhooks;get'= {
        }
        &'tokctl;help;webhooks;delete'= {
        }
        &'tokctl;help;webhooks;test'= {
        }
        &'tokctl;help;webhooks;deliveries'= {
        }
        &'tokctl;help;webhooks;listen'= {
        }
        &'tokctl;help;webhooks;verify'= {
        }
        &'tokctl;help;x402'= {
            cand show 'Show the workspace''s x402 terms ("off" when it takes no x402 payments)'
            cand set 'Set the workspace''s x402 terms (replacing any): chat requests naming an agent_wallet must then carry a payment'
            cand disable 'Stop taking x402 payments (asks first on a terminal; --yes otherwise)'
        }
        &'tokctl;help;x402;show'= {
        }
        &'tokctl;help;x402;set'= {
        }
        &'tokctl;help;x402;disable'= {
        }
        &'tokctl;help;scan'= {
        }
        &'tokctl;help;completions'= {
        }
        &'tokctl;help;help'= {
        }
    ]
    $completions[$command]
}
