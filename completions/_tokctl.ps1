
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'tokctl' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'tokctl'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'tokctl' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('login', 'login', [CompletionResultType]::ParameterValue, 'Save a base URL and API key as a profile (asks on a terminal; --with-token reads stdin)')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Show and change the configuration file and its profiles')
            [CompletionResult]::new('tokens', 'tokens', [CompletionResultType]::ParameterValue, 'Create, list, inspect, rotate and revoke tokens')
            [CompletionResult]::new('keys', 'keys', [CompletionResultType]::ParameterValue, 'Create, list and revoke the workspace''s API keys')
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'Read the workspace audit log')
            [CompletionResult]::new('scopes', 'scopes', [CompletionResultType]::ParameterValue, 'List every scope a token can hold')
            [CompletionResult]::new('chat', 'chat', [CompletionResultType]::ParameterValue, 'Chat through the gateway: one answer for PROMPT (or piped stdin), or a session on a terminal')
            [CompletionResult]::new('models', 'models', [CompletionResultType]::ParameterValue, 'List the gateway''s models with prices, quality and latency')
            [CompletionResult]::new('usage', 'usage', [CompletionResultType]::ParameterValue, 'Show the credit ledger: totals by day and model, with a chart on a terminal')
            [CompletionResult]::new('requests', 'requests', [CompletionResultType]::ParameterValue, 'Read the gateway''s request log: who asked, which model answered, timings and cost')
            [CompletionResult]::new('settings', 'settings', [CompletionResultType]::ParameterValue, 'Show or change the workspace''s settings: whether the request log keeps bodies')
            [CompletionResult]::new('webhooks', 'webhooks', [CompletionResultType]::ParameterValue, 'Configure webhook endpoints, receive events locally, verify signatures')
            [CompletionResult]::new('x402', 'x402', [CompletionResultType]::ParameterValue, 'Show, set or remove the workspace''s x402 terms: what agents naming an agent_wallet pay')
            [CompletionResult]::new('scan', 'scan', [CompletionResultType]::ParameterValue, 'Find leaked secrets (tokctl''s and providers'' keys) in files, stdin or git history, and optionally revoke tokctl''s')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'tokctl;login' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('--with-token', '--with-token', [CompletionResultType]::ParameterName, 'Read the API key from standard input (for CI)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;config' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show the settings in effect and where each comes from (the key is redacted)')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Set KEY (base_url, chat_base_url, api_key) in the current profile')
            [CompletionResult]::new('profiles', 'profiles', [CompletionResultType]::ParameterValue, 'List profiles; the current one is marked')
            [CompletionResult]::new('use', 'use', [CompletionResultType]::ParameterValue, 'Make PROFILE the current profile')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'tokctl;config;show' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;config;set' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;config;profiles' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;config;use' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;config;help' {
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show the settings in effect and where each comes from (the key is redacted)')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Set KEY (base_url, chat_base_url, api_key) in the current profile')
            [CompletionResult]::new('profiles', 'profiles', [CompletionResultType]::ParameterValue, 'List profiles; the current one is marked')
            [CompletionResult]::new('use', 'use', [CompletionResultType]::ParameterValue, 'Make PROFILE the current profile')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'tokctl;config;help;show' {
            break
        }
        'tokctl;config;help;set' {
            break
        }
        'tokctl;config;help;profiles' {
            break
        }
        'tokctl;config;help;use' {
            break
        }
        'tokctl;config;help;help' {
            break
        }
        'tokctl;tokens' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create a token and print its secret (shown once)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List tokens (every page)')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Show one token by id or name (a revoked token too)')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one token by id or name (a revoked token too)')
            [CompletionResult]::new('rotate', 'rotate', [CompletionResultType]::ParameterValue, 'Replace a token''s secret and print the new one; the old one stops working at once, or after --overlap')
            [CompletionResult]::new('limit', 'limit', [CompletionResultType]::ParameterValue, 'Set, change or remove a token''s spending limit (the only change a token takes in place)')
            [CompletionResult]::new('set-limit', 'set-limit', [CompletionResultType]::ParameterValue, 'Set, change or remove a token''s spending limit (the only change a token takes in place)')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Revoke tokens for good (asks first on a terminal; --yes otherwise)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'tokctl;tokens;create' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Scope to grant (repeat, or a comma list); see `tokctl scopes`')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Scope to grant (repeat, or a comma list); see `tokctl scopes`')
            [CompletionResult]::new('--expires-in', '--expires-in', [CompletionResultType]::ParameterName, 'Expire after this long, e.g. 30d, 12h, 90m (a day is 24 h; years and months are not taken, as their length varies: 365d)')
            [CompletionResult]::new('--expires-at', '--expires-at', [CompletionResultType]::ParameterName, 'Expire at this RFC 3339 time, e.g. 2030-01-01T00:00:00Z')
            [CompletionResult]::new('--credit-limit', '--credit-limit', [CompletionResultType]::ParameterName, 'The most it may spend through the chat gateway per period, in credits (exact, e.g. 25 or 0.5)')
            [CompletionResult]::new('--limit-reset', '--limit-reset', [CompletionResultType]::ParameterName, 'When the limit''s period starts again, on the UTC calendar [default: never]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;tokens;list' {
            [CompletionResult]::new('--status', '--status', [CompletionResultType]::ParameterName, 'Only tokens with this status')
            [CompletionResult]::new('--expiring-within', '--expiring-within', [CompletionResultType]::ParameterName, 'Only tokens expiring within this long, e.g. 7d')
            [CompletionResult]::new('--stale', '--stale', [CompletionResultType]::ParameterName, 'Only tokens unused for this long (never-used tokens count from creation), e.g. 90d')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;tokens;get' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;tokens;show' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;tokens;rotate' {
            [CompletionResult]::new('--overlap', '--overlap', [CompletionResultType]::ParameterName, 'Let the old secret work this much longer (at most 24h), e.g. 10m, so machines can switch first; a later rotation ends it')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;tokens;limit' {
            [CompletionResult]::new('--credit-limit', '--credit-limit', [CompletionResultType]::ParameterName, 'The most it may spend per period, in credits (exact)')
            [CompletionResult]::new('--reset', '--reset', [CompletionResultType]::ParameterName, 'When the period starts again (the spend is always what the new period holds)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('--remove', '--remove', [CompletionResultType]::ParameterName, 'Remove the limit')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;tokens;set-limit' {
            [CompletionResult]::new('--credit-limit', '--credit-limit', [CompletionResultType]::ParameterName, 'The most it may spend per period, in credits (exact)')
            [CompletionResult]::new('--reset', '--reset', [CompletionResultType]::ParameterName, 'When the period starts again (the spend is always what the new period holds)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('--remove', '--remove', [CompletionResultType]::ParameterName, 'Remove the limit')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;tokens;revoke' {
            [CompletionResult]::new('--stale', '--stale', [CompletionResultType]::ParameterName, 'Also revoke every active token unused for this long, e.g. 90d')
            [CompletionResult]::new('--from-file', '--from-file', [CompletionResultType]::ParameterName, 'Also revoke the ids or names in FILE, one a line (`-` for stdin)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('--expired', '--expired', [CompletionResultType]::ParameterName, 'Also revoke every expired token')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (needed when not on a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (needed when not on a terminal)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;tokens;help' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create a token and print its secret (shown once)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List tokens (every page)')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Show one token by id or name (a revoked token too)')
            [CompletionResult]::new('rotate', 'rotate', [CompletionResultType]::ParameterValue, 'Replace a token''s secret and print the new one; the old one stops working at once, or after --overlap')
            [CompletionResult]::new('limit', 'limit', [CompletionResultType]::ParameterValue, 'Set, change or remove a token''s spending limit (the only change a token takes in place)')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Revoke tokens for good (asks first on a terminal; --yes otherwise)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'tokctl;tokens;help;create' {
            break
        }
        'tokctl;tokens;help;list' {
            break
        }
        'tokctl;tokens;help;get' {
            break
        }
        'tokctl;tokens;help;rotate' {
            break
        }
        'tokctl;tokens;help;limit' {
            break
        }
        'tokctl;tokens;help;revoke' {
            break
        }
        'tokctl;tokens;help;help' {
            break
        }
        'tokctl;keys' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create an API key and print its secret (shown once)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List API keys (every page)')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Revoke an API key for good (asks first on a terminal; --yes otherwise)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'tokctl;keys;create' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Scope to grant (repeat, or a comma list); see `tokctl scopes`')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Scope to grant (repeat, or a comma list); see `tokctl scopes`')
            [CompletionResult]::new('--expires-in', '--expires-in', [CompletionResultType]::ParameterName, 'Expire after this long, e.g. 30d, 12h, 90m (a day is 24 h; years and months are not taken, as their length varies: 365d)')
            [CompletionResult]::new('--expires-at', '--expires-at', [CompletionResultType]::ParameterName, 'Expire at this RFC 3339 time, e.g. 2030-01-01T00:00:00Z')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;keys;list' {
            [CompletionResult]::new('--status', '--status', [CompletionResultType]::ParameterName, 'Only keys with this status')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;keys;revoke' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (needed when not on a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (needed when not on a terminal)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;keys;help' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create an API key and print its secret (shown once)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List API keys (every page)')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Revoke an API key for good (asks first on a terminal; --yes otherwise)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'tokctl;keys;help;create' {
            break
        }
        'tokctl;keys;help;list' {
            break
        }
        'tokctl;keys;help;revoke' {
            break
        }
        'tokctl;keys;help;help' {
            break
        }
        'tokctl;audit' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List audit entries, newest first (every page)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'tokctl;audit;list' {
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Only entries about this token (id or name)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Only entries about this API key (id or name)')
            [CompletionResult]::new('--action', '--action', [CompletionResultType]::ParameterName, 'Only entries with this action, e.g. token.rotated')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;audit;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List audit entries, newest first (every page)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'tokctl;audit;help;list' {
            break
        }
        'tokctl;audit;help;help' {
            break
        }
        'tokctl;scopes' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;chat' {
            [CompletionResult]::new('-m', '-m', [CompletionResultType]::ParameterName, 'A model id, or auto, auto-fast, auto-cheap')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'A model id, or auto, auto-fast, auto-cheap')
            [CompletionResult]::new('--system', '--system', [CompletionResultType]::ParameterName, 'A system message sent first')
            [CompletionResult]::new('--max-tokens', '--max-tokens', [CompletionResultType]::ParameterName, 'Most tokens in the answer')
            [CompletionResult]::new('--temperature', '--temperature', [CompletionResultType]::ParameterName, 'Sampling temperature, 0 to 2')
            [CompletionResult]::new('--budget', '--budget', [CompletionResultType]::ParameterName, 'Most credits the request may consume (an exact decimal, e.g. 0.05)')
            [CompletionResult]::new('--cost-weight', '--cost-weight', [CompletionResultType]::ParameterName, 'How much price counts for auto routing, 0 to 1')
            [CompletionResult]::new('--quality-weight', '--quality-weight', [CompletionResultType]::ParameterName, 'How much quality counts for auto routing, 0 to 1')
            [CompletionResult]::new('--wallet', '--wallet', [CompletionResultType]::ParameterName, 'Agent wallet (0x + 40 hex digits) recorded for settlement')
            [CompletionResult]::new('--wallet-key-file', '--wallet-key-file', [CompletionResultType]::ParameterName, 'Pay the gateway''s x402 offers with the wallet whose private key is in FILE (mode 0600; the key is never printed): the request names that wallet, and a 402 is paid once')
            [CompletionResult]::new('--max-payment', '--max-payment', [CompletionResultType]::ParameterName, 'The most one payment may be, in atomic units of the token the server asks for (50000 is 0.05 USDC); a larger offer is refused, unsigned')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('--stream', '--stream', [CompletionResultType]::ParameterName, 'Print the answer as it arrives')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;models' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;usage' {
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Only the requests made with this token (id tok_... or name)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;requests' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List gateway requests, newest first (--follow to keep printing new ones)')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one request by the id its answer carried (x-request-id)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'tokctl;requests;list' {
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Only requests this token sent (id or name)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Only requests this API key sent (id or name)')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Only requests naming this model or answered by it')
            [CompletionResult]::new('--status', '--status', [CompletionResultType]::ParameterName, 'Only requests answered with this status class or status: 2xx, 4xx, 5xx, 429')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only requests that arrived since this time: RFC 3339, or a length of time ago (1h, 2d)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only requests that arrived before this time: RFC 3339, or a length of time ago')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Only requests of this agent session')
            [CompletionResult]::new('-L', '-L ', [CompletionResultType]::ParameterName, 'Most requests listed (the newest)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Most requests listed (the newest)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'After the list, print each new request as it is logged, until interrupted')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'After the list, print each new request as it is logged, until interrupted')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;requests;show' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;requests;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List gateway requests, newest first (--follow to keep printing new ones)')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one request by the id its answer carried (x-request-id)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'tokctl;requests;help;list' {
            break
        }
        'tokctl;requests;help;show' {
            break
        }
        'tokctl;requests;help;help' {
            break
        }
        'tokctl;settings' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show the workspace''s settings (needs settings:read)')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Change the workspace''s settings; what is not named is kept (needs settings:write)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'tokctl;settings;show' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;settings;set' {
            [CompletionResult]::new('--store-bodies', '--store-bodies', [CompletionResultType]::ParameterName, 'Keep each gateway request''s body and a whole answer''s message in the request log, secrets redacted and cut at the server''s cap (true), or keep no body (false). Audited')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;settings;help' {
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show the workspace''s settings (needs settings:read)')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Change the workspace''s settings; what is not named is kept (needs settings:write)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'tokctl;settings;help;show' {
            break
        }
        'tokctl;settings;help;set' {
            break
        }
        'tokctl;settings;help;help' {
            break
        }
        'tokctl;webhooks' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Add an endpoint and print its signing secret (shown once)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List endpoints')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Show one endpoint')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete an endpoint')
            [CompletionResult]::new('test', 'test', [CompletionResultType]::ParameterValue, 'Send a webhook.test event to an endpoint')
            [CompletionResult]::new('deliveries', 'deliveries', [CompletionResultType]::ParameterValue, 'Show an endpoint''s delivery attempts')
            [CompletionResult]::new('listen', 'listen', [CompletionResultType]::ParameterValue, 'Receive events on 127.0.0.1: verify each, answer 2xx or 401, print it, maybe forward it')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check a signature against the body on stdin: exit 0 when it matches, 1 when not')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'tokctl;webhooks;create' {
            [CompletionResult]::new('-e', '-e', [CompletionResultType]::ParameterName, 'Event type to receive (repeat): token.rotated, token.expiring, token.limit_threshold, token.limit_reached')
            [CompletionResult]::new('--event', '--event', [CompletionResultType]::ParameterName, 'Event type to receive (repeat): token.rotated, token.expiring, token.limit_threshold, token.limit_reached')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;webhooks;list' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;webhooks;get' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;webhooks;delete' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;webhooks;test' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;webhooks;deliveries' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;webhooks;listen' {
            [CompletionResult]::new('--port', '--port', [CompletionResultType]::ParameterName, 'Port to listen on (0 picks a free one)')
            [CompletionResult]::new('--secret', '--secret', [CompletionResultType]::ParameterName, 'The endpoint''s signing secret')
            [CompletionResult]::new('--forward-to', '--forward-to', [CompletionResultType]::ParameterName, 'Also POST each verified event, with its headers, to this URL')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;webhooks;verify' {
            [CompletionResult]::new('--secret', '--secret', [CompletionResultType]::ParameterName, 'The endpoint''s signing secret')
            [CompletionResult]::new('--signature', '--signature', [CompletionResultType]::ParameterName, 'The x-service-signature header value (sha256=...)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;webhooks;help' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Add an endpoint and print its signing secret (shown once)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List endpoints')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Show one endpoint')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete an endpoint')
            [CompletionResult]::new('test', 'test', [CompletionResultType]::ParameterValue, 'Send a webhook.test event to an endpoint')
            [CompletionResult]::new('deliveries', 'deliveries', [CompletionResultType]::ParameterValue, 'Show an endpoint''s delivery attempts')
            [CompletionResult]::new('listen', 'listen', [CompletionResultType]::ParameterValue, 'Receive events on 127.0.0.1: verify each, answer 2xx or 401, print it, maybe forward it')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check a signature against the body on stdin: exit 0 when it matches, 1 when not')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'tokctl;webhooks;help;create' {
            break
        }
        'tokctl;webhooks;help;list' {
            break
        }
        'tokctl;webhooks;help;get' {
            break
        }
        'tokctl;webhooks;help;delete' {
            break
        }
        'tokctl;webhooks;help;test' {
            break
        }
        'tokctl;webhooks;help;deliveries' {
            break
        }
        'tokctl;webhooks;help;listen' {
            break
        }
        'tokctl;webhooks;help;verify' {
            break
        }
        'tokctl;webhooks;help;help' {
            break
        }
        'tokctl;x402' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show the workspace''s x402 terms ("off" when it takes no x402 payments)')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Set the workspace''s x402 terms (replacing any): chat requests naming an agent_wallet must then carry a payment')
            [CompletionResult]::new('disable', 'disable', [CompletionResultType]::ParameterValue, 'Stop taking x402 payments (asks first on a terminal; --yes otherwise)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'tokctl;x402;show' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;x402;set' {
            [CompletionResult]::new('--pay-to', '--pay-to', [CompletionResultType]::ParameterName, 'The address agents pay (0x and 40 hexadecimal digits)')
            [CompletionResult]::new('--network', '--network', [CompletionResultType]::ParameterName, 'CAIP-2 network of the token, e.g. eip155:84532 (Base Sepolia) or eip155:8453 (Base)')
            [CompletionResult]::new('--asset', '--asset', [CompletionResultType]::ParameterName, 'The token contract (USDC on Base Sepolia: 0x036CbD53842c5426634e7929541eC2318f3dCF7e)')
            [CompletionResult]::new('--asset-name', '--asset-name', [CompletionResultType]::ParameterName, 'The token''s EIP-712 domain name, as its contract has it (USDC, USD Coin)')
            [CompletionResult]::new('--asset-version', '--asset-version', [CompletionResultType]::ParameterName, 'The token''s EIP-712 domain version (2 for USDC)')
            [CompletionResult]::new('--decimals', '--decimals', [CompletionResultType]::ParameterName, 'The token''s decimals (6 for USDC)')
            [CompletionResult]::new('--credit-price', '--credit-price', [CompletionResultType]::ParameterName, 'What one credit costs, in the token''s atomic units: 10000 with 6 decimals is 0.01')
            [CompletionResult]::new('--facilitator', '--facilitator', [CompletionResultType]::ParameterName, 'The facilitator that verifies and settles payments')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;x402;disable' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (needed when not on a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (needed when not on a terminal)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;x402;help' {
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show the workspace''s x402 terms ("off" when it takes no x402 payments)')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Set the workspace''s x402 terms (replacing any): chat requests naming an agent_wallet must then carry a payment')
            [CompletionResult]::new('disable', 'disable', [CompletionResultType]::ParameterValue, 'Stop taking x402 payments (asks first on a terminal; --yes otherwise)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'tokctl;x402;help;show' {
            break
        }
        'tokctl;x402;help;set' {
            break
        }
        'tokctl;x402;help;disable' {
            break
        }
        'tokctl;x402;help;help' {
            break
        }
        'tokctl;scan' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('--git-history', '--git-history', [CompletionResultType]::ParameterName, 'Scan the added lines of every commit of the repository at each path (`git log -p --all`) instead of the files as they are now')
            [CompletionResult]::new('--no-ignore', '--no-ignore', [CompletionResultType]::ParameterName, 'Also scan files that .gitignore and .ignore exclude')
            [CompletionResult]::new('--revoke', '--revoke', [CompletionResultType]::ParameterName, 'Send every tokctl secret found to the revocation endpoint, which needs no API key (asks first on a terminal; --yes otherwise). Providers'' keys are reported, not sent')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Revoke without asking')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Revoke without asking')
            [CompletionResult]::new('--include-own-key', '--include-own-key', [CompletionResultType]::ParameterName, 'Also revoke the API key this CLI is configured with when it is among the secrets found (left out otherwise, or asked about on a terminal)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;completions' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table on a terminal, tab-separated lines when piped, or json')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile to use [env: TOKCTL_PROFILE]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Token API base URL, e.g. http://127.0.0.1:8080/v1 (`/v1` is added when no version ends it) [env: TOKCTL_BASE_URL]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the value a script needs (the secret, or ids)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each HTTP request (method, path, status, time) to stderr; never a secret')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'tokctl;help' {
            [CompletionResult]::new('login', 'login', [CompletionResultType]::ParameterValue, 'Save a base URL and API key as a profile (asks on a terminal; --with-token reads stdin)')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Show and change the configuration file and its profiles')
            [CompletionResult]::new('tokens', 'tokens', [CompletionResultType]::ParameterValue, 'Create, list, inspect, rotate and revoke tokens')
            [CompletionResult]::new('keys', 'keys', [CompletionResultType]::ParameterValue, 'Create, list and revoke the workspace''s API keys')
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'Read the workspace audit log')
            [CompletionResult]::new('scopes', 'scopes', [CompletionResultType]::ParameterValue, 'List every scope a token can hold')
            [CompletionResult]::new('chat', 'chat', [CompletionResultType]::ParameterValue, 'Chat through the gateway: one answer for PROMPT (or piped stdin), or a session on a terminal')
            [CompletionResult]::new('models', 'models', [CompletionResultType]::ParameterValue, 'List the gateway''s models with prices, quality and latency')
            [CompletionResult]::new('usage', 'usage', [CompletionResultType]::ParameterValue, 'Show the credit ledger: totals by day and model, with a chart on a terminal')
            [CompletionResult]::new('requests', 'requests', [CompletionResultType]::ParameterValue, 'Read the gateway''s request log: who asked, which model answered, timings and cost')
            [CompletionResult]::new('settings', 'settings', [CompletionResultType]::ParameterValue, 'Show or change the workspace''s settings: whether the request log keeps bodies')
            [CompletionResult]::new('webhooks', 'webhooks', [CompletionResultType]::ParameterValue, 'Configure webhook endpoints, receive events locally, verify signatures')
            [CompletionResult]::new('x402', 'x402', [CompletionResultType]::ParameterValue, 'Show, set or remove the workspace''s x402 terms: what agents naming an agent_wallet pay')
            [CompletionResult]::new('scan', 'scan', [CompletionResultType]::ParameterValue, 'Find leaked secrets (tokctl''s and providers'' keys) in files, stdin or git history, and optionally revoke tokctl''s')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'tokctl;help;login' {
            break
        }
        'tokctl;help;config' {
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show the settings in effect and where each comes from (the key is redacted)')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Set KEY (base_url, chat_base_url, api_key) in the current profile')
            [CompletionResult]::new('profiles', 'profiles', [CompletionResultType]::ParameterValue, 'List profiles; the current one is marked')
            [CompletionResult]::new('use', 'use', [CompletionResultType]::ParameterValue, 'Make PROFILE the current profile')
            break
        }
        'tokctl;help;config;show' {
            break
        }
        'tokctl;help;config;set' {
            break
        }
        'tokctl;help;config;profiles' {
            break
        }
        'tokctl;help;config;use' {
            break
        }
        'tokctl;help;tokens' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create a token and print its secret (shown once)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List tokens (every page)')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Show one token by id or name (a revoked token too)')
            [CompletionResult]::new('rotate', 'rotate', [CompletionResultType]::ParameterValue, 'Replace a token''s secret and print the new one; the old one stops working at once, or after --overlap')
            [CompletionResult]::new('limit', 'limit', [CompletionResultType]::ParameterValue, 'Set, change or remove a token''s spending limit (the only change a token takes in place)')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Revoke tokens for good (asks first on a terminal; --yes otherwise)')
            break
        }
        'tokctl;help;tokens;create' {
            break
        }
        'tokctl;help;tokens;list' {
            break
        }
        'tokctl;help;tokens;get' {
            break
        }
        'tokctl;help;tokens;rotate' {
            break
        }
        'tokctl;help;tokens;limit' {
            break
        }
        'tokctl;help;tokens;revoke' {
            break
        }
        'tokctl;help;keys' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create an API key and print its secret (shown once)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List API keys (every page)')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Revoke an API key for good (asks first on a terminal; --yes otherwise)')
            break
        }
        'tokctl;help;keys;create' {
            break
        }
        'tokctl;help;keys;list' {
            break
        }
        'tokctl;help;keys;revoke' {
            break
        }
        'tokctl;help;audit' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List audit entries, newest first (every page)')
            break
        }
        'tokctl;help;audit;list' {
            break
        }
        'tokctl;help;scopes' {
            break
        }
        'tokctl;help;chat' {
            break
        }
        'tokctl;help;models' {
            break
        }
        'tokctl;help;usage' {
            break
        }
        'tokctl;help;requests' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List gateway requests, newest first (--follow to keep printing new ones)')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one request by the id its answer carried (x-request-id)')
            break
        }
        'tokctl;help;requests;list' {
            break
        }
        'tokctl;help;requests;show' {
            break
        }
        'tokctl;help;settings' {
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show the workspace''s settings (needs settings:read)')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Change the workspace''s settings; what is not named is kept (needs settings:write)')
            break
        }
        'tokctl;help;settings;show' {
            break
        }
        'tokctl;help;settings;set' {
            break
        }
        'tokctl;help;webhooks' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Add an endpoint and print its signing secret (shown once)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List endpoints')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Show one endpoint')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete an endpoint')
            [CompletionResult]::new('test', 'test', [CompletionResultType]::ParameterValue, 'Send a webhook.test event to an endpoint')
            [CompletionResult]::new('deliveries', 'deliveries', [CompletionResultType]::ParameterValue, 'Show an endpoint''s delivery attempts')
            [CompletionResult]::new('listen', 'listen', [CompletionResultType]::ParameterValue, 'Receive events on 127.0.0.1: verify each, answer 2xx or 401, print it, maybe forward it')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check a signature against the body on stdin: exit 0 when it matches, 1 when not')
            break
        }
        'tokctl;help;webhooks;create' {
            break
        }
        'tokctl;help;webhooks;list' {
            break
        }
        'tokctl;help;webhooks;get' {
            break
        }
        'tokctl;help;webhooks;delete' {
            break
        }
        'tokctl;help;webhooks;test' {
            break
        }
        'tokctl;help;webhooks;deliveries' {
            break
        }
        'tokctl;help;webhooks;listen' {
            break
        }
        'tokctl;help;webhooks;verify' {
            break
        }
        'tokctl;help;x402' {
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show the workspace''s x402 terms ("off" when it takes no x402 payments)')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Set the workspace''s x402 terms (replacing any): chat requests naming an agent_wallet must then carry a payment')
            [CompletionResult]::new('disable', 'disable', [CompletionResultType]::ParameterValue, 'Stop taking x402 payments (asks first on a terminal; --yes otherwise)')
            break
        }
        'tokctl;help;x402;show' {
            break
        }
        'tokctl;help;x402;set' {
            break
        }
        'tokctl;help;x402;disable' {
            break
        }
        'tokctl;help;scan' {
            break
        }
        'tokctl;help;completions' {
            break
        }
        'tokctl;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
