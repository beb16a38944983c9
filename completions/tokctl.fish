# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_tokctl_global_optspecs
    string join \n o/output= q/quiet v/verbose profile= base-url= h/help V/version
end

function __fish_tokctl_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_tokctl_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_tokctl_using_subcommand
    set -l cmd (__fish_tokctl_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c tokctl -n "__fish_tokctl_needs_command" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_needs_command" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_needs_command" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_needs_command" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_needs_command" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_needs_command" -s V -l version -d 'Print version'
complete -c tokctl -n "__fish_tokctl_needs_command" -f -a "login" -d 'Save a base URL and API key as a profile (asks on a terminal; --with-token reads stdin)'
complete -c tokctl -n "__fish_tokctl_needs_command" -f -a "config" -d 'Show and change the configuration file and its profiles'
complete -c tokctl -n "__fish_tokctl_needs_command" -f -a "tokens" -d 'Create, list, inspect, rotate and revoke tokens'
complete -c tokctl -n "__fish_tokctl_needs_command" -f -a "keys" -d 'Create, list and revoke the workspace\'s API keys'
complete -c tokctl -n "__fish_tokctl_needs_command" -f -a "audit" -d 'Read the workspace audit log'
complete -c tokctl -n "__fish_tokctl_needs_command" -f -a "scopes" -d 'List every scope a token can hold'
complete -c tokctl -n "__fish_tokctl_needs_command" -f -a "chat" -d 'Chat through the gateway: one answer for PROMPT (or piped stdin), or a session on a terminal'
complete -c tokctl -n "__fish_tokctl_needs_command" -f -a "models" -d 'List the gateway\'s models with prices, quality and latency'
complete -c tokctl -n "__fish_tokctl_needs_command" -f -a "usage" -d 'Show the credit ledger: totals by day and model, with a chart on a terminal'
complete -c tokctl -n "__fish_tokctl_needs_command" -f -a "requests" -d 'Read the gateway\'s request log: who asked, which model answered, timings and cost'
complete -c tokctl -n "__fish_tokctl_needs_command" -f -a "settings" -d 'Show or change the workspace\'s settings: whether the request log keeps bodies'
complete -c tokctl -n "__fish_tokctl_needs_command" -f -a "webhooks" -d 'Configure webhook endpoints, receive events locally, verify signatures'
complete -c tokctl -n "__fish_tokctl_needs_command" -f -a "x402" -d 'Show, set or remove the workspace\'s x402 terms: what agents naming an agent_wallet pay'
complete -c tokctl -n "__fish_tokctl_needs_command" -f -a "scan" -d 'Find leaked secrets (tokctl\'s and providers\' keys) in files, stdin or git history, and optionally revoke tokctl\'s'
complete -c tokctl -n "__fish_tokctl_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c tokctl -n "__fish_tokctl_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c tokctl -n "__fish_tokctl_using_subcommand login" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand login" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand login" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand login" -l with-token -d 'Read the API key from standard input (for CI)'
complete -c tokctl -n "__fish_tokctl_using_subcommand login" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand login" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand login" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and not __fish_seen_subcommand_from show set profiles use help" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and not __fish_seen_subcommand_from show set profiles use help" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and not __fish_seen_subcommand_from show set profiles use help" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and not __fish_seen_subcommand_from show set profiles use help" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and not __fish_seen_subcommand_from show set profiles use help" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and not __fish_seen_subcommand_from show set profiles use help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and not __fish_seen_subcommand_from show set profiles use help" -f -a "show" -d 'Show the settings in effect and where each comes from (the key is redacted)'
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and not __fish_seen_subcommand_from show set profiles use help" -f -a "set" -d 'Set KEY (base_url, chat_base_url, api_key) in the current profile'
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and not __fish_seen_subcommand_from show set profiles use help" -f -a "profiles" -d 'List profiles; the current one is marked'
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and not __fish_seen_subcommand_from show set profiles use help" -f -a "use" -d 'Make PROFILE the current profile'
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and not __fish_seen_subcommand_from show set profiles use help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and __fish_seen_subcommand_from show" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and __fish_seen_subcommand_from show" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and __fish_seen_subcommand_from show" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and __fish_seen_subcommand_from show" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and __fish_seen_subcommand_from set" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and __fish_seen_subcommand_from set" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and __fish_seen_subcommand_from set" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and __fish_seen_subcommand_from set" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and __fish_seen_subcommand_from set" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and __fish_seen_subcommand_from set" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and __fish_seen_subcommand_from profiles" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and __fish_seen_subcommand_from profiles" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and __fish_seen_subcommand_from profiles" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and __fish_seen_subcommand_from profiles" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and __fish_seen_subcommand_from profiles" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and __fish_seen_subcommand_from profiles" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and __fish_seen_subcommand_from use" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and __fish_seen_subcommand_from use" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and __fish_seen_subcommand_from use" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and __fish_seen_subcommand_from use" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and __fish_seen_subcommand_from use" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show the settings in effect and where each comes from (the key is redacted)'
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "set" -d 'Set KEY (base_url, chat_base_url, api_key) in the current profile'
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "profiles" -d 'List profiles; the current one is marked'
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "use" -d 'Make PROFILE the current profile'
complete -c tokctl -n "__fish_tokctl_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and not __fish_seen_subcommand_from create list get show rotate limit set-limit revoke help" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and not __fish_seen_subcommand_from create list get show rotate limit set-limit revoke help" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and not __fish_seen_subcommand_from create list get show rotate limit set-limit revoke help" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and not __fish_seen_subcommand_from create list get show rotate limit set-limit revoke help" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and not __fish_seen_subcommand_from create list get show rotate limit set-limit revoke help" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and not __fish_seen_subcommand_from create list get show rotate limit set-limit revoke help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and not __fish_seen_subcommand_from create list get show rotate limit set-limit revoke help" -f -a "create" -d 'Create a token and print its secret (shown once)'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and not __fish_seen_subcommand_from create list get show rotate limit set-limit revoke help" -f -a "list" -d 'List tokens (every page)'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and not __fish_seen_subcommand_from create list get show rotate limit set-limit revoke help" -f -a "get" -d 'Show one token by id or name (a revoked token too)'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and not __fish_seen_subcommand_from create list get show rotate limit set-limit revoke help" -f -a "show" -d 'Show one token by id or name (a revoked token too)'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and not __fish_seen_subcommand_from create list get show rotate limit set-limit revoke help" -f -a "rotate" -d 'Replace a token\'s secret and print the new one; the old one stops working at once, or after --overlap'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and not __fish_seen_subcommand_from create list get show rotate limit set-limit revoke help" -f -a "limit" -d 'Set, change or remove a token\'s spending limit (the only change a token takes in place)'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and not __fish_seen_subcommand_from create list get show rotate limit set-limit revoke help" -f -a "set-limit" -d 'Set, change or remove a token\'s spending limit (the only change a token takes in place)'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and not __fish_seen_subcommand_from create list get show rotate limit set-limit revoke help" -f -a "revoke" -d 'Revoke tokens for good (asks first on a terminal; --yes otherwise)'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and not __fish_seen_subcommand_from create list get show rotate limit set-limit revoke help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from create" -s s -l scope -d 'Scope to grant (repeat, or a comma list); see `tokctl scopes`' -r -f -a "tokens:read\t''
tokens:write\t''
tokens:rotate\t''
tokens:revoke\t''
audit:read\t''
webhooks:read\t''
webhooks:write\t''
chat:write\t''
usage:read\t''
keys:read\t''
keys:write\t''
x402:read\t''
x402:write\t''
requests:read\t''
settings:read\t''
settings:write\t''"
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from create" -l expires-in -d 'Expire after this long, e.g. 30d, 12h, 90m (a day is 24 h; years and months are not taken, as their length varies: 365d)' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from create" -l expires-at -d 'Expire at this RFC 3339 time, e.g. 2030-01-01T00:00:00Z' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from create" -l credit-limit -d 'The most it may spend through the chat gateway per period, in credits (exact, e.g. 25 or 0.5)' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from create" -l limit-reset -d 'When the limit\'s period starts again, on the UTC calendar [default: never]' -r -f -a "daily\t''
weekly\t''
monthly\t''
never\t''"
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from create" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from create" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from create" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from create" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from create" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from list" -l status -d 'Only tokens with this status' -r -f -a "active\t''
expired\t''
revoked\t''"
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from list" -l expiring-within -d 'Only tokens expiring within this long, e.g. 7d' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from list" -l stale -d 'Only tokens unused for this long (never-used tokens count from creation), e.g. 90d' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from list" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from list" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from list" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from get" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from get" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from get" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from get" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from get" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from get" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from show" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from show" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from show" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from show" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from rotate" -l overlap -d 'Let the old secret work this much longer (at most 24h), e.g. 10m, so machines can switch first; a later rotation ends it' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from rotate" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from rotate" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from rotate" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from rotate" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from rotate" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from rotate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from limit" -l credit-limit -d 'The most it may spend per period, in credits (exact)' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from limit" -l reset -d 'When the period starts again (the spend is always what the new period holds)' -r -f -a "daily\t''
weekly\t''
monthly\t''
never\t''"
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from limit" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from limit" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from limit" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from limit" -l remove -d 'Remove the limit'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from limit" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from limit" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from limit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from set-limit" -l credit-limit -d 'The most it may spend per period, in credits (exact)' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from set-limit" -l reset -d 'When the period starts again (the spend is always what the new period holds)' -r -f -a "daily\t''
weekly\t''
monthly\t''
never\t''"
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from set-limit" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from set-limit" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from set-limit" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from set-limit" -l remove -d 'Remove the limit'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from set-limit" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from set-limit" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from set-limit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from revoke" -l stale -d 'Also revoke every active token unused for this long, e.g. 90d' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from revoke" -l from-file -d 'Also revoke the ids or names in FILE, one a line (`-` for stdin)' -r -F
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from revoke" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from revoke" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from revoke" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from revoke" -l expired -d 'Also revoke every expired token'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from revoke" -s y -l yes -d 'Do not ask for confirmation (needed when not on a terminal)'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from revoke" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from revoke" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from revoke" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from help" -f -a "create" -d 'Create a token and print its secret (shown once)'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from help" -f -a "list" -d 'List tokens (every page)'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from help" -f -a "get" -d 'Show one token by id or name (a revoked token too)'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from help" -f -a "rotate" -d 'Replace a token\'s secret and print the new one; the old one stops working at once, or after --overlap'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from help" -f -a "limit" -d 'Set, change or remove a token\'s spending limit (the only change a token takes in place)'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from help" -f -a "revoke" -d 'Revoke tokens for good (asks first on a terminal; --yes otherwise)'
complete -c tokctl -n "__fish_tokctl_using_subcommand tokens; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and not __fish_seen_subcommand_from create list revoke help" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and not __fish_seen_subcommand_from create list revoke help" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and not __fish_seen_subcommand_from create list revoke help" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and not __fish_seen_subcommand_from create list revoke help" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and not __fish_seen_subcommand_from create list revoke help" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and not __fish_seen_subcommand_from create list revoke help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and not __fish_seen_subcommand_from create list revoke help" -f -a "create" -d 'Create an API key and print its secret (shown once)'
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and not __fish_seen_subcommand_from create list revoke help" -f -a "list" -d 'List API keys (every page)'
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and not __fish_seen_subcommand_from create list revoke help" -f -a "revoke" -d 'Revoke an API key for good (asks first on a terminal; --yes otherwise)'
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and not __fish_seen_subcommand_from create list revoke help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and __fish_seen_subcommand_from create" -s s -l scope -d 'Scope to grant (repeat, or a comma list); see `tokctl scopes`' -r -f -a "tokens:read\t''
tokens:write\t''
tokens:rotate\t''
tokens:revoke\t''
audit:read\t''
webhooks:read\t''
webhooks:write\t''
chat:write\t''
usage:read\t''
keys:read\t''
keys:write\t''
x402:read\t''
x402:write\t''
requests:read\t''
settings:read\t''
settings:write\t''"
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and __fish_seen_subcommand_from create" -l expires-in -d 'Expire after this long, e.g. 30d, 12h, 90m (a day is 24 h; years and months are not taken, as their length varies: 365d)' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and __fish_seen_subcommand_from create" -l expires-at -d 'Expire at this RFC 3339 time, e.g. 2030-01-01T00:00:00Z' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and __fish_seen_subcommand_from create" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and __fish_seen_subcommand_from create" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and __fish_seen_subcommand_from create" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and __fish_seen_subcommand_from create" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and __fish_seen_subcommand_from create" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and __fish_seen_subcommand_from list" -l status -d 'Only keys with this status' -r -f -a "active\t''
expired\t''
revoked\t''"
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and __fish_seen_subcommand_from list" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and __fish_seen_subcommand_from list" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and __fish_seen_subcommand_from list" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and __fish_seen_subcommand_from revoke" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and __fish_seen_subcommand_from revoke" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and __fish_seen_subcommand_from revoke" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and __fish_seen_subcommand_from revoke" -s y -l yes -d 'Do not ask for confirmation (needed when not on a terminal)'
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and __fish_seen_subcommand_from revoke" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and __fish_seen_subcommand_from revoke" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and __fish_seen_subcommand_from revoke" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and __fish_seen_subcommand_from help" -f -a "create" -d 'Create an API key and print its secret (shown once)'
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and __fish_seen_subcommand_from help" -f -a "list" -d 'List API keys (every page)'
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and __fish_seen_subcommand_from help" -f -a "revoke" -d 'Revoke an API key for good (asks first on a terminal; --yes otherwise)'
complete -c tokctl -n "__fish_tokctl_using_subcommand keys; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c tokctl -n "__fish_tokctl_using_subcommand audit; and not __fish_seen_subcommand_from list help" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand audit; and not __fish_seen_subcommand_from list help" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand audit; and not __fish_seen_subcommand_from list help" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand audit; and not __fish_seen_subcommand_from list help" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand audit; and not __fish_seen_subcommand_from list help" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand audit; and not __fish_seen_subcommand_from list help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand audit; and not __fish_seen_subcommand_from list help" -f -a "list" -d 'List audit entries, newest first (every page)'
complete -c tokctl -n "__fish_tokctl_using_subcommand audit; and not __fish_seen_subcommand_from list help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c tokctl -n "__fish_tokctl_using_subcommand audit; and __fish_seen_subcommand_from list" -l token -d 'Only entries about this token (id or name)' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand audit; and __fish_seen_subcommand_from list" -l key -d 'Only entries about this API key (id or name)' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand audit; and __fish_seen_subcommand_from list" -l action -d 'Only entries with this action, e.g. token.rotated' -r -f -a "token.created\t''
token.rotated\t''
token.revoked\t''
token.limit_changed\t''
key.created\t''
key.revoked\t''
session.started\t''
session.ended\t''
webhook.created\t''
webhook.deleted\t''
x402.updated\t''
x402.disabled\t''
settings.updated\t''
auth.denied\t''"
complete -c tokctl -n "__fish_tokctl_using_subcommand audit; and __fish_seen_subcommand_from list" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand audit; and __fish_seen_subcommand_from list" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand audit; and __fish_seen_subcommand_from list" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand audit; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand audit; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand audit; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand audit; and __fish_seen_subcommand_from help" -f -a "list" -d 'List audit entries, newest first (every page)'
complete -c tokctl -n "__fish_tokctl_using_subcommand audit; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c tokctl -n "__fish_tokctl_using_subcommand scopes" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand scopes" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand scopes" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand scopes" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand scopes" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand scopes" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand chat" -s m -l model -d 'A model id, or auto, auto-fast, auto-cheap' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand chat" -l system -d 'A system message sent first' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand chat" -l max-tokens -d 'Most tokens in the answer' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand chat" -l temperature -d 'Sampling temperature, 0 to 2' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand chat" -l budget -d 'Most credits the request may consume (an exact decimal, e.g. 0.05)' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand chat" -l cost-weight -d 'How much price counts for auto routing, 0 to 1' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand chat" -l quality-weight -d 'How much quality counts for auto routing, 0 to 1' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand chat" -l wallet -d 'Agent wallet (0x + 40 hex digits) recorded for settlement' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand chat" -l wallet-key-file -d 'Pay the gateway\'s x402 offers with the wallet whose private key is in FILE (mode 0600; the key is never printed): the request names that wallet, and a 402 is paid once' -r -F
complete -c tokctl -n "__fish_tokctl_using_subcommand chat" -l max-payment -d 'The most one payment may be, in atomic units of the token the server asks for (50000 is 0.05 USDC); a larger offer is refused, unsigned' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand chat" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand chat" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand chat" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand chat" -l stream -d 'Print the answer as it arrives'
complete -c tokctl -n "__fish_tokctl_using_subcommand chat" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand chat" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand chat" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand models" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand models" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand models" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand models" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand models" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand models" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand usage" -l token -d 'Only the requests made with this token (id tok_... or name)' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand usage" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand usage" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand usage" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand usage" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand usage" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand usage" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and not __fish_seen_subcommand_from list show help" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and not __fish_seen_subcommand_from list show help" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and not __fish_seen_subcommand_from list show help" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and not __fish_seen_subcommand_from list show help" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and not __fish_seen_subcommand_from list show help" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and not __fish_seen_subcommand_from list show help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and not __fish_seen_subcommand_from list show help" -f -a "list" -d 'List gateway requests, newest first (--follow to keep printing new ones)'
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and not __fish_seen_subcommand_from list show help" -f -a "show" -d 'Show one request by the id its answer carried (x-request-id)'
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and not __fish_seen_subcommand_from list show help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and __fish_seen_subcommand_from list" -l token -d 'Only requests this token sent (id or name)' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and __fish_seen_subcommand_from list" -l key -d 'Only requests this API key sent (id or name)' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and __fish_seen_subcommand_from list" -l model -d 'Only requests naming this model or answered by it' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and __fish_seen_subcommand_from list" -l status -d 'Only requests answered with this status class or status: 2xx, 4xx, 5xx, 429' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and __fish_seen_subcommand_from list" -l since -d 'Only requests that arrived since this time: RFC 3339, or a length of time ago (1h, 2d)' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and __fish_seen_subcommand_from list" -l until -d 'Only requests that arrived before this time: RFC 3339, or a length of time ago' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and __fish_seen_subcommand_from list" -l session -d 'Only requests of this agent session' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and __fish_seen_subcommand_from list" -s L -l limit -d 'Most requests listed (the newest)' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and __fish_seen_subcommand_from list" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and __fish_seen_subcommand_from list" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and __fish_seen_subcommand_from list" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and __fish_seen_subcommand_from list" -s f -l follow -d 'After the list, print each new request as it is logged, until interrupted'
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and __fish_seen_subcommand_from show" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and __fish_seen_subcommand_from show" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and __fish_seen_subcommand_from show" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and __fish_seen_subcommand_from show" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and __fish_seen_subcommand_from help" -f -a "list" -d 'List gateway requests, newest first (--follow to keep printing new ones)'
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one request by the id its answer carried (x-request-id)'
complete -c tokctl -n "__fish_tokctl_using_subcommand requests; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c tokctl -n "__fish_tokctl_using_subcommand settings; and not __fish_seen_subcommand_from show set help" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand settings; and not __fish_seen_subcommand_from show set help" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand settings; and not __fish_seen_subcommand_from show set help" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand settings; and not __fish_seen_subcommand_from show set help" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand settings; and not __fish_seen_subcommand_from show set help" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand settings; and not __fish_seen_subcommand_from show set help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand settings; and not __fish_seen_subcommand_from show set help" -f -a "show" -d 'Show the workspace\'s settings (needs settings:read)'
complete -c tokctl -n "__fish_tokctl_using_subcommand settings; and not __fish_seen_subcommand_from show set help" -f -a "set" -d 'Change the workspace\'s settings; what is not named is kept (needs settings:write)'
complete -c tokctl -n "__fish_tokctl_using_subcommand settings; and not __fish_seen_subcommand_from show set help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c tokctl -n "__fish_tokctl_using_subcommand settings; and __fish_seen_subcommand_from show" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand settings; and __fish_seen_subcommand_from show" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand settings; and __fish_seen_subcommand_from show" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand settings; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand settings; and __fish_seen_subcommand_from show" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand settings; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand settings; and __fish_seen_subcommand_from set" -l store-bodies -d 'Keep each gateway request\'s body and a whole answer\'s message in the request log, secrets redacted and cut at the server\'s cap (true), or keep no body (false). Audited' -r -f -a "true\t''
false\t''"
complete -c tokctl -n "__fish_tokctl_using_subcommand settings; and __fish_seen_subcommand_from set" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand settings; and __fish_seen_subcommand_from set" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand settings; and __fish_seen_subcommand_from set" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand settings; and __fish_seen_subcommand_from set" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand settings; and __fish_seen_subcommand_from set" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand settings; and __fish_seen_subcommand_from set" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand settings; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show the workspace\'s settings (needs settings:read)'
complete -c tokctl -n "__fish_tokctl_using_subcommand settings; and __fish_seen_subcommand_from help" -f -a "set" -d 'Change the workspace\'s settings; what is not named is kept (needs settings:write)'
complete -c tokctl -n "__fish_tokctl_using_subcommand settings; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and not __fish_seen_subcommand_from create list get delete test deliveries listen verify help" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and not __fish_seen_subcommand_from create list get delete test deliveries listen verify help" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and not __fish_seen_subcommand_from create list get delete test deliveries listen verify help" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and not __fish_seen_subcommand_from create list get delete test deliveries listen verify help" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and not __fish_seen_subcommand_from create list get delete test deliveries listen verify help" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and not __fish_seen_subcommand_from create list get delete test deliveries listen verify help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and not __fish_seen_subcommand_from create list get delete test deliveries listen verify help" -f -a "create" -d 'Add an endpoint and print its signing secret (shown once)'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and not __fish_seen_subcommand_from create list get delete test deliveries listen verify help" -f -a "list" -d 'List endpoints'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and not __fish_seen_subcommand_from create list get delete test deliveries listen verify help" -f -a "get" -d 'Show one endpoint'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and not __fish_seen_subcommand_from create list get delete test deliveries listen verify help" -f -a "delete" -d 'Delete an endpoint'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and not __fish_seen_subcommand_from create list get delete test deliveries listen verify help" -f -a "test" -d 'Send a webhook.test event to an endpoint'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and not __fish_seen_subcommand_from create list get delete test deliveries listen verify help" -f -a "deliveries" -d 'Show an endpoint\'s delivery attempts'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and not __fish_seen_subcommand_from create list get delete test deliveries listen verify help" -f -a "listen" -d 'Receive events on 127.0.0.1: verify each, answer 2xx or 401, print it, maybe forward it'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and not __fish_seen_subcommand_from create list get delete test deliveries listen verify help" -f -a "verify" -d 'Check a signature against the body on stdin: exit 0 when it matches, 1 when not'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and not __fish_seen_subcommand_from create list get delete test deliveries listen verify help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from create" -s e -l event -d 'Event type to receive (repeat): token.rotated, token.expiring, token.limit_threshold, token.limit_reached' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from create" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from create" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from create" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from create" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from create" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from list" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from list" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from list" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from get" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from get" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from get" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from get" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from get" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from get" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from delete" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from delete" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from delete" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from delete" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from delete" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from test" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from test" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from test" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from test" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from test" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from test" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from deliveries" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from deliveries" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from deliveries" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from deliveries" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from deliveries" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from deliveries" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from listen" -l port -d 'Port to listen on (0 picks a free one)' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from listen" -l secret -d 'The endpoint\'s signing secret' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from listen" -l forward-to -d 'Also POST each verified event, with its headers, to this URL' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from listen" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from listen" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from listen" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from listen" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from listen" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from listen" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from verify" -l secret -d 'The endpoint\'s signing secret' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from verify" -l signature -d 'The x-service-signature header value (sha256=...)' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from verify" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from verify" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from verify" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from verify" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from verify" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from verify" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from help" -f -a "create" -d 'Add an endpoint and print its signing secret (shown once)'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from help" -f -a "list" -d 'List endpoints'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from help" -f -a "get" -d 'Show one endpoint'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete an endpoint'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from help" -f -a "test" -d 'Send a webhook.test event to an endpoint'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from help" -f -a "deliveries" -d 'Show an endpoint\'s delivery attempts'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from help" -f -a "listen" -d 'Receive events on 127.0.0.1: verify each, answer 2xx or 401, print it, maybe forward it'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from help" -f -a "verify" -d 'Check a signature against the body on stdin: exit 0 when it matches, 1 when not'
complete -c tokctl -n "__fish_tokctl_using_subcommand webhooks; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and not __fish_seen_subcommand_from show set disable help" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and not __fish_seen_subcommand_from show set disable help" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and not __fish_seen_subcommand_from show set disable help" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and not __fish_seen_subcommand_from show set disable help" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and not __fish_seen_subcommand_from show set disable help" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and not __fish_seen_subcommand_from show set disable help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and not __fish_seen_subcommand_from show set disable help" -f -a "show" -d 'Show the workspace\'s x402 terms ("off" when it takes no x402 payments)'
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and not __fish_seen_subcommand_from show set disable help" -f -a "set" -d 'Set the workspace\'s x402 terms (replacing any): chat requests naming an agent_wallet must then carry a payment'
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and not __fish_seen_subcommand_from show set disable help" -f -a "disable" -d 'Stop taking x402 payments (asks first on a terminal; --yes otherwise)'
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and not __fish_seen_subcommand_from show set disable help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from show" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from show" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from show" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from show" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from set" -l pay-to -d 'The address agents pay (0x and 40 hexadecimal digits)' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from set" -l network -d 'CAIP-2 network of the token, e.g. eip155:84532 (Base Sepolia) or eip155:8453 (Base)' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from set" -l asset -d 'The token contract (USDC on Base Sepolia: 0x036CbD53842c5426634e7929541eC2318f3dCF7e)' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from set" -l asset-name -d 'The token\'s EIP-712 domain name, as its contract has it (USDC, USD Coin)' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from set" -l asset-version -d 'The token\'s EIP-712 domain version (2 for USDC)' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from set" -l decimals -d 'The token\'s decimals (6 for USDC)' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from set" -l credit-price -d 'What one credit costs, in the token\'s atomic units: 10000 with 6 decimals is 0.01' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from set" -l facilitator -d 'The facilitator that verifies and settles payments' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from set" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from set" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from set" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from set" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from set" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from set" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from disable" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from disable" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from disable" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from disable" -s y -l yes -d 'Do not ask for confirmation (needed when not on a terminal)'
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from disable" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from disable" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from disable" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show the workspace\'s x402 terms ("off" when it takes no x402 payments)'
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from help" -f -a "set" -d 'Set the workspace\'s x402 terms (replacing any): chat requests naming an agent_wallet must then carry a payment'
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from help" -f -a "disable" -d 'Stop taking x402 payments (asks first on a terminal; --yes otherwise)'
complete -c tokctl -n "__fish_tokctl_using_subcommand x402; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c tokctl -n "__fish_tokctl_using_subcommand scan" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand scan" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand scan" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand scan" -l git-history -d 'Scan the added lines of every commit of the repository at each path (`git log -p --all`) instead of the files as they are now'
complete -c tokctl -n "__fish_tokctl_using_subcommand scan" -l no-ignore -d 'Also scan files that .gitignore and .ignore exclude'
complete -c tokctl -n "__fish_tokctl_using_subcommand scan" -l revoke -d 'Send every tokctl secret found to the revocation endpoint, which needs no API key (asks first on a terminal; --yes otherwise). Providers\' keys are reported, not sent'
complete -c tokctl -n "__fish_tokctl_using_subcommand scan" -s y -l yes -d 'Revoke without asking'
complete -c tokctl -n "__fish_tokctl_using_subcommand scan" -l include-own-key -d 'Also revoke the API key this CLI is configured with when it is among the secrets found (left out otherwise, or asked about on a terminal)'
complete -c tokctl -n "__fish_tokctl_using_subcommand scan" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand scan" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand scan" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand completions" -s o -l output -d 'Output format: table on a terminal, tab-separated lines when piped, or json' -r -f -a "auto\t'A table on a terminal, tab-separated lines otherwise'
plain\t'Tab-separated lines'
json\t'The API\'s JSON objects'
sarif\t'SARIF 2.1.0, for code-scanning tools (`tokctl scan` only)'"
complete -c tokctl -n "__fish_tokctl_using_subcommand completions" -l profile -d 'Profile to use [env: TOKCTL_PROFILE]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand completions" -l base-url -d 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]' -r
complete -c tokctl -n "__fish_tokctl_using_subcommand completions" -s q -l quiet -d 'Print only the value a script needs (the secret, or ids)'
complete -c tokctl -n "__fish_tokctl_using_subcommand completions" -s v -l verbose -d 'Log each HTTP request (method, path, status, time) to stderr; never a secret'
complete -c tokctl -n "__fish_tokctl_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and not __fish_seen_subcommand_from login config tokens keys audit scopes chat models usage requests settings webhooks x402 scan completions help" -f -a "login" -d 'Save a base URL and API key as a profile (asks on a terminal; --with-token reads stdin)'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and not __fish_seen_subcommand_from login config tokens keys audit scopes chat models usage requests settings webhooks x402 scan completions help" -f -a "config" -d 'Show and change the configuration file and its profiles'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and not __fish_seen_subcommand_from login config tokens keys audit scopes chat models usage requests settings webhooks x402 scan completions help" -f -a "tokens" -d 'Create, list, inspect, rotate and revoke tokens'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and not __fish_seen_subcommand_from login config tokens keys audit scopes chat models usage requests settings webhooks x402 scan completions help" -f -a "keys" -d 'Create, list and revoke the workspace\'s API keys'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and not __fish_seen_subcommand_from login config tokens keys audit scopes chat models usage requests settings webhooks x402 scan completions help" -f -a "audit" -d 'Read the workspace audit log'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and not __fish_seen_subcommand_from login config tokens keys audit scopes chat models usage requests settings webhooks x402 scan completions help" -f -a "scopes" -d 'List every scope a token can hold'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and not __fish_seen_subcommand_from login config tokens keys audit scopes chat models usage requests settings webhooks x402 scan completions help" -f -a "chat" -d 'Chat through the gateway: one answer for PROMPT (or piped stdin), or a session on a terminal'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and not __fish_seen_subcommand_from login config tokens keys audit scopes chat models usage requests settings webhooks x402 scan completions help" -f -a "models" -d 'List the gateway\'s models with prices, quality and latency'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and not __fish_seen_subcommand_from login config tokens keys audit scopes chat models usage requests settings webhooks x402 scan completions help" -f -a "usage" -d 'Show the credit ledger: totals by day and model, with a chart on a terminal'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and not __fish_seen_subcommand_from login config tokens keys audit scopes chat models usage requests settings webhooks x402 scan completions help" -f -a "requests" -d 'Read the gateway\'s request log: who asked, which model answered, timings and cost'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and not __fish_seen_subcommand_from login config tokens keys audit scopes chat models usage requests settings webhooks x402 scan completions help" -f -a "settings" -d 'Show or change the workspace\'s settings: whether the request log keeps bodies'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and not __fish_seen_subcommand_from login config tokens keys audit scopes chat models usage requests settings webhooks x402 scan completions help" -f -a "webhooks" -d 'Configure webhook endpoints, receive events locally, verify signatures'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and not __fish_seen_subcommand_from login config tokens keys audit scopes chat models usage requests settings webhooks x402 scan completions help" -f -a "x402" -d 'Show, set or remove the workspace\'s x402 terms: what agents naming an agent_wallet pay'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and not __fish_seen_subcommand_from login config tokens keys audit scopes chat models usage requests settings webhooks x402 scan completions help" -f -a "scan" -d 'Find leaked secrets (tokctl\'s and providers\' keys) in files, stdin or git history, and optionally revoke tokctl\'s'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and not __fish_seen_subcommand_from login config tokens keys audit scopes chat models usage requests settings webhooks x402 scan completions help" -f -a "completions" -d 'Print a shell completion script'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and not __fish_seen_subcommand_from login config tokens keys audit scopes chat models usage requests settings webhooks x402 scan completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "show" -d 'Show the settings in effect and where each comes from (the key is redacted)'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "set" -d 'Set KEY (base_url, chat_base_url, api_key) in the current profile'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "profiles" -d 'List profiles; the current one is marked'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "use" -d 'Make PROFILE the current profile'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from tokens" -f -a "create" -d 'Create a token and print its secret (shown once)'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from tokens" -f -a "list" -d 'List tokens (every page)'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from tokens" -f -a "get" -d 'Show one token by id or name (a revoked token too)'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from tokens" -f -a "rotate" -d 'Replace a token\'s secret and print the new one; the old one stops working at once, or after --overlap'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from tokens" -f -a "limit" -d 'Set, change or remove a token\'s spending limit (the only change a token takes in place)'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from tokens" -f -a "revoke" -d 'Revoke tokens for good (asks first on a terminal; --yes otherwise)'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from keys" -f -a "create" -d 'Create an API key and print its secret (shown once)'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from keys" -f -a "list" -d 'List API keys (every page)'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from keys" -f -a "revoke" -d 'Revoke an API key for good (asks first on a terminal; --yes otherwise)'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from audit" -f -a "list" -d 'List audit entries, newest first (every page)'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from requests" -f -a "list" -d 'List gateway requests, newest first (--follow to keep printing new ones)'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from requests" -f -a "show" -d 'Show one request by the id its answer carried (x-request-id)'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from settings" -f -a "show" -d 'Show the workspace\'s settings (needs settings:read)'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from settings" -f -a "set" -d 'Change the workspace\'s settings; what is not named is kept (needs settings:write)'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from webhooks" -f -a "create" -d 'Add an endpoint and print its signing secret (shown once)'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from webhooks" -f -a "list" -d 'List endpoints'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from webhooks" -f -a "get" -d 'Show one endpoint'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from webhooks" -f -a "delete" -d 'Delete an endpoint'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from webhooks" -f -a "test" -d 'Send a webhook.test event to an endpoint'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from webhooks" -f -a "deliveries" -d 'Show an endpoint\'s delivery attempts'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from webhooks" -f -a "listen" -d 'Receive events on 127.0.0.1: verify each, answer 2xx or 401, print it, maybe forward it'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from webhooks" -f -a "verify" -d 'Check a signature against the body on stdin: exit 0 when it matches, 1 when not'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from x402" -f -a "show" -d 'Show the workspace\'s x402 terms ("off" when it takes no x402 payments)'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from x402" -f -a "set" -d 'Set the workspace\'s x402 terms (replacing any): chat requests naming an agent_wallet must then carry a payment'
complete -c tokctl -n "__fish_tokctl_using_subcommand help; and __fish_seen_subcommand_from x402" -f -a "disable" -d 'Stop taking x402 payments (asks first on a terminal; --yes otherwise)'
