"""The gateway's x402 payments against a real local EVM chain (driven by reliability/x402_chain.sh,
which installs what this needs and runs it with the venv's Python).

1. anvil (npm @foundry-rs/anvil-linux-*) on 127.0.0.1, a port of its choosing; its default
   accounts: #0 deploys, #1 pays (the agent wallet), #2 is the facilitator (it sends the
   settlement transactions and is the `upto` witness's facilitator), #3 is paid (pay_to).
2. The chain: Permit2's runtime code (from npm @uniswap/v4-periphery, patched for chain 31337:
   see patch_permit2) set at its canonical address, the x402 upto proxy replica's runtime code
   set at 0x4020A4f3...0002, TestUSD deployed (artifacts.json: no compiler at run time), minted
   to the payer, who approves Permit2 (which `upto` needs).
3. The facilitator (facilitator.py: the official x402 Python package's facilitator mechanisms)
   and the release tokctl-server; the workspace's x402 terms set with PUT /v1/x402.
4. The official Python client (x402HttpxClient from x402 2.25.0) pays POST /v1/chat/completions
   naming agent_wallet: `upto` whole (a client with exact and upto: it takes the offer's first
   entry, upto), `exact` whole (a client with exact alone), `upto` streamed; then a paid
   request's PAYMENT-SIGNATURE is sent again, twice (the exact one and the upto one).
5. Checks, on the chain with web3: the payer's and payee's TestUSD balances moved by exactly the
   sum of the amounts the gateway reported settled (PAYMENT-RESPONSE, platform.settlement), each
   settlement's transaction holds exactly one Transfer(payer -> pay_to, amount) of TestUSD, each
   upto settled less than the offered maximum, for the amount the gateway asked /settle for, and
   the replays were refused (402, the facilitator not even asked) and moved nothing; sent
   straight to the facilitator's /verify, the same payments are invalid (their nonces spent on
   the chain).

Prints a report; exit status 0 only when every check holds.
"""

import argparse
import asyncio
import base64
import hashlib
import json
import os
import re
import subprocess
import sys
import time

import httpx
from eth_abi import encode as abi_encode
from eth_account import Account
from eth_utils import keccak, to_checksum_address
from web3 import Web3

from x402 import x402Client
from x402.http import x402HTTPClient
from x402.http.clients import x402HttpxClient
from x402.mechanisms.evm import constants as x402_constants
from x402.mechanisms.evm.exact import register_exact_evm_client
from x402.mechanisms.evm.upto import UptoEvmScheme

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from common import Server  # noqa: E402  (reliability/common.py)

PERMIT2 = "0x000000000022D473030F116dDEE9F6B43aC78BA3"
UPTO_PROXY = "0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002"
NETWORK = "eip155:31337"
# keccak256 of the Permit2 runtime code in @uniswap/v4-periphery 1.0.3
# (lib/permit2/test/utils/DeployPermit2.sol), as extracted, before the patch.
PERMIT2_NPM_KECCAK = "a1ad0529565c25202190d4ae7f75d4ca08dc432cc760544ee7d0313b68e82ecd"
# The code hash of Permit2 as deployed on Base Sepolia (chain 84532), as an independent
# project's fork test pins it (found through a code search): the npm runtime with Base
# Sepolia's two immutables put in must hash to it, which shows the npm code is canonical Permit2
# but for those immutables.
PERMIT2_BASE_SEPOLIA_CODEHASH = "dcde65555316946c298e4c60c6213eb5c3aeab4354d1f3fac5427236bcbb9ebe"
# Permit2's EIP712 caches (chain id, domain separator) as immutables, set by its constructor,
# and returns the cached separator while block.chainid equals the cached id. Deployed on a
# chain, both are that chain's. The npm code's are chain 31337 and the separator of another
# address (where Uniswap's tests deployed it), so at the canonical address on anvil's chain
# 31337 Permit2 would check signatures against the wrong domain. The patch sets the cached
# chain id to 0: the separator is then computed from block.chainid and address(this) on every
# call, which gives what Permit2 deployed on chain 31337 would have cached (a little more gas).
CACHED_CHAIN_ID = "467f" + "00" * 30 + "7a69"       # CHAINID; PUSH32 31337
CACHED_CHAIN_ID_PATCHED = "467f" + "00" * 32        # CHAINID; PUSH32 0
CACHED_SEPARATOR_OFFSET = 6983                       # bytes: the PUSH32 of the cached separator
TRANSFER_TOPIC = "0x" + keccak(b"Transfer(address,address,uint256)").hex()


class Run:
    def __init__(self, args):
        self.args = args
        self.work = args.work
        self.checks = []     # (ok, what)
        self.procs = []
        self.figures = {}

    # ---------------------------------------------------------------- bookkeeping

    def check(self, ok, what):
        self.checks.append((bool(ok), what))
        print(f"  [{'ok' if ok else 'FAIL'}] {what}", flush=True)
        return ok

    def must(self, ok, what):
        if not self.check(ok, what):
            raise SystemExit(f"x402_chain: cannot go on: {what}")

    def spawn(self, name, argv, env=None):
        log = open(os.path.join(self.work, f"{name}.log"), "ab")
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=env or os.environ, start_new_session=True)
        log.close()
        with open(self.args.pidfile, "a") as f:
            f.write(f"{proc.pid}\n")
        self.procs.append(proc)
        return proc

    def stop_all(self):
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.terminate()
        for proc in reversed(self.procs):
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    # ---------------------------------------------------------------- the chain

    def start_anvil(self):
        config = os.path.join(self.work, "anvil-accounts.json")
        proc = self.spawn("anvil", [self.args.anvil, "--host", "127.0.0.1", "--port", "0",
                                    "--config-out", config])
        deadline = time.monotonic() + 30
        port = None
        while time.monotonic() < deadline and port is None:
            text = open(os.path.join(self.work, "anvil.log"), errors="replace").read()
            m = re.search(r"Listening on 127\.0\.0\.1:(\d+)", text)
            if m:
                port = int(m.group(1))
            elif proc.poll() is not None:
                raise SystemExit(f"anvil exited ({proc.returncode}): {text[-2000:]}")
            else:
                time.sleep(0.05)
        if port is None:
            raise SystemExit("anvil did not say it is listening within 30 s")
        self.rpc = f"http://127.0.0.1:{port}"
        self.w3 = Web3(Web3.HTTPProvider(self.rpc))
        keys = json.load(open(config))["private_keys"]
        self.deployer, self.payer, self.fac, self.payee = (Account.from_key(k) for k in keys[:4])
        version = subprocess.run([self.args.anvil, "--version"], capture_output=True, text=True).stdout
        self.figures["anvil"] = version.splitlines()[0].replace("anvil Version: ", "")
        info = self.w3.provider.make_request("anvil_nodeInfo", []).get("result", {})
        self.figures["hardfork"] = info.get("hardFork", "?")
        self.must(self.w3.eth.chain_id == 31337, f"anvil at {self.rpc}, chain id {self.w3.eth.chain_id}")

    def send(self, acct, tx):
        tx = dict(tx)
        tx.pop("maxFeePerGas", None)
        tx.pop("maxPriorityFeePerGas", None)
        tx.update({"from": acct.address, "nonce": self.w3.eth.get_transaction_count(acct.address),
                   "gas": tx.get("gas", 3_000_000), "gasPrice": self.w3.eth.gas_price,
                   "chainId": 31337})
        signed = acct.sign_transaction(tx)
        receipt = self.w3.eth.wait_for_transaction_receipt(self.w3.eth.send_raw_transaction(signed.raw_transaction))
        if receipt.status != 1:
            raise SystemExit(f"transaction failed: {receipt}")
        return receipt

    def set_code(self, address, code):
        answer = self.w3.provider.make_request("anvil_setCode", [address, code])
        if "error" in answer:
            raise SystemExit(f"anvil_setCode {address}: {answer['error']}")

    def patch_permit2(self):
        """The npm runtime, checked and patched (see CACHED_CHAIN_ID)."""
        code = open(self.args.permit2_runtime).read().strip().lower().removeprefix("0x")
        raw = bytes.fromhex(code)
        got = keccak(raw).hex()
        self.must(got == PERMIT2_NPM_KECCAK,
                  f"Permit2 runtime from npm: {len(raw):,} bytes, keccak {got[:10]}..."
                  + (" as pinned" if got == PERMIT2_NPM_KECCAK else
                     f", not the {PERMIT2_NPM_KECCAK[:10]}... pinned (delete {self.args.permit2_runtime} to fetch it again)"))
        self.must(code.count(CACHED_CHAIN_ID) == 1, "Permit2 runtime: one cached chain id (31337) to patch")
        # Cross-check: with Base Sepolia's immutables the code is Permit2 as deployed there.
        old_separator = code[2 * CACHED_SEPARATOR_OFFSET:2 * CACHED_SEPARATOR_OFFSET + 64]
        base_sepolia = (code.replace(CACHED_CHAIN_ID, "467f" + (84532).to_bytes(32, "big").hex())
                        .replace(old_separator, permit2_separator(84532).hex()))
        self.check(keccak(bytes.fromhex(base_sepolia)).hex() == PERMIT2_BASE_SEPOLIA_CODEHASH,
                   "Permit2 runtime with Base Sepolia's immutables hashes to Permit2's code hash there "
                   f"({PERMIT2_BASE_SEPOLIA_CODEHASH[:10]}...)")
        patched = code.replace(CACHED_CHAIN_ID, CACHED_CHAIN_ID_PATCHED)
        self.figures["permit2_codehash_patched"] = keccak(bytes.fromhex(patched)).hex()
        return "0x" + patched

    def setup_chain(self):
        art = json.load(open(os.path.join(HERE, "artifacts.json")))
        for name, c in art["contracts"].items():
            text = open(os.path.join(HERE, c["source"]), "rb").read()
            self.must(hashlib.sha256(text).hexdigest() == c["sourceSha256"],
                      f"artifacts.json's {name} was compiled from {c['source']} as it is now")
        self.figures["solc"] = art["compiler"]
        self.figures["openzeppelin"] = art["openzeppelin"]
        w3 = self.w3
        # 1. Permit2
        self.set_code(PERMIT2, self.patch_permit2())
        separator = w3.eth.call({"to": PERMIT2, "data": "0x3644e515"})  # DOMAIN_SEPARATOR()
        self.must(bytes(separator) == permit2_separator(31337),
                  f"Permit2 at {PERMIT2}: DOMAIN_SEPARATOR() is the canonical one for chain 31337 "
                  f"(0x{bytes(separator).hex()[:10]}...)")
        # 2. the upto proxy replica: deployed, its runtime code (PERMIT2 is its one immutable)
        # copied to the canonical address the SDKs hard-code.
        proxy = art["contracts"]["x402UptoPermit2Proxy"]
        factory = w3.eth.contract(abi=proxy["abi"], bytecode=proxy["bytecode"])
        tmp = self.send(self.deployer, factory.constructor(PERMIT2).build_transaction(
            {"from": self.deployer.address})).contractAddress
        self.set_code(UPTO_PROXY, w3.eth.get_code(tmp).to_0x_hex())
        upto = w3.eth.contract(address=UPTO_PROXY, abi=proxy["abi"])
        self.figures["upto_codehash"] = keccak(bytes(w3.eth.get_code(UPTO_PROXY))).hex()
        sdk_types = x402_constants.UPTO_PERMIT2_WITNESS_TYPES
        sdk_witness = "Witness(" + ",".join(f"{f['type']} {f['name']}" for f in sdk_types["Witness"]) + ")"
        self.must(upto.functions.PERMIT2().call() == PERMIT2
                  and upto.functions.WITNESS_TYPE_STRING().call().endswith(sdk_witness)
                  and x402_constants.X402_UPTO_PERMIT2_PROXY_ADDRESS == UPTO_PROXY,
                  f"upto proxy replica at {UPTO_PROXY}: PERMIT2() is Permit2, witness {sdk_witness} as the SDK signs it")
        # 3. TestUSD, minted to the payer, who approves Permit2 (upto pays through it).
        tusd = art["contracts"]["TestUSD"]
        factory = w3.eth.contract(abi=tusd["abi"], bytecode=tusd["bytecode"])
        self.token_address = self.send(self.deployer, factory.constructor().build_transaction(
            {"from": self.deployer.address})).contractAddress
        self.token = w3.eth.contract(address=self.token_address, abi=tusd["abi"])
        self.send(self.deployer, self.token.functions.mint(self.payer.address, 1_000 * 10**6)
                  .build_transaction({"from": self.deployer.address}))
        self.send(self.payer, self.token.functions.approve(PERMIT2, 2**256 - 1)
                  .build_transaction({"from": self.payer.address}))
        self.must(self.token.functions.allowance(self.payer.address, PERMIT2).call() == 2**256 - 1
                  and self.token.functions.balanceOf(self.payer.address).call() == 1_000 * 10**6,
                  f"TestUSD at {self.token_address}: payer {short(self.payer.address)} holds 1,000 TUSD "
                  "and approved Permit2 for all")

    def balances(self):
        return (self.token.functions.balanceOf(self.payer.address).call(),
                self.token.functions.balanceOf(self.payee.address).call())

    # ---------------------------------------------------------------- facilitator and gateway

    def start_facilitator(self):
        port_file = os.path.join(self.work, "facilitator.port")
        self.fac_log = os.path.join(self.work, "facilitator.jsonl")
        env = dict(os.environ, FACILITATOR_KEY=self.fac.key.to_0x_hex())
        proc = self.spawn("facilitator", [sys.executable, os.path.join(HERE, "facilitator.py"),
                                          "--rpc", self.rpc, "--network", NETWORK,
                                          "--port-file", port_file, "--log", self.fac_log], env=env)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise SystemExit(f"the facilitator exited ({proc.returncode}); see {self.work}/facilitator.log")
            try:
                url = f"http://127.0.0.1:{int(open(port_file).read())}"
                supported = httpx.get(url + "/supported", timeout=2).json()
                break
            except (OSError, ValueError, httpx.HTTPError):
                time.sleep(0.1)
        else:
            raise SystemExit("the facilitator did not answer /supported within 60 s")
        self.fac_url = url
        kinds = {(k["scheme"], k["network"]) for k in supported["kinds"] if k["x402Version"] == 2}
        settler = [k.get("extra", {}).get("facilitatorAddress") for k in supported["kinds"]
                   if k["scheme"] == "upto" and k["network"] == NETWORK]
        self.must({("exact", NETWORK), ("upto", NETWORK)} <= kinds and settler == [self.fac.address],
                  f"facilitator at {url}: /supported offers exact and upto on {NETWORK}, "
                  f"upto settled by {short(self.fac.address)}")

    def start_gateway(self):
        server = Server(self.args.binary, os.path.join(self.work, "data"),
                        os.path.join(self.work, "server.log"), pidfile=self.args.pidfile)
        port = server.start()
        self.server = server
        self.procs.append(server.proc)
        self.base = f"http://127.0.0.1:{port}"
        self.admin = server.admin_key()
        terms = {"pay_to": self.payee.address, "network": NETWORK, "asset": self.token_address,
                 "asset_name": "Test USD", "asset_version": "1", "asset_decimals": 6,
                 "credit_price": self.args.credit_price, "facilitator_url": self.fac_url}
        r = httpx.put(self.base + "/v1/x402", json=terms, headers=self.auth(), timeout=10)
        self.must(r.status_code == 200 and r.json().get("enabled") is True,
                  f"gateway at {self.base}: PUT /v1/x402 {r.status_code} (pay_to {short(self.payee.address)}, "
                  f"credit_price {self.args.credit_price} units a credit)")

    def auth(self):
        return {"Authorization": f"Bearer {self.admin}"}

    # ---------------------------------------------------------------- paying

    def client(self, schemes):
        """The official client: exact (EIP-3009) registered, upto (Permit2) too when asked;
        spend controls off (TestUSD is not in the SDK's table of known assets). Hooks note the
        402's offer, the entry chosen and the payment made (the PAYMENT-SIGNATURE header sent is
        this payload, encoded as the transport encodes it)."""
        client = x402Client()
        register_exact_evm_client(client, self.payer)
        if "upto" in schemes:
            client.register("eip155:*", UptoEvmScheme(self.payer))
        client.set_spend_controls(False)
        seen = {}

        async def before(ctx):
            seen["offer"] = ctx.payment_required
            seen["chosen"] = ctx.selected_requirements

        async def after(ctx):
            seen["payload"] = ctx.payment_payload
            seen["header"] = x402HTTPClient(client).encode_payment_signature_header(ctx.payment_payload)

        client.on_before_payment_creation(before)
        client.on_after_payment_creation(after)
        return client, seen

    def body(self, stream=False, text="Say something about ledgers."):
        body = {"model": "sim-mini", "messages": [{"role": "user", "content": text}],
                "max_tokens": 200, "agent_wallet": self.payer.address}
        if stream:
            body["stream"] = True
        return body

    async def pay(self, label, schemes, stream=False):
        client, seen = self.client(schemes)
        url = self.base + "/v1/chat/completions"
        async with x402HttpxClient(client, timeout=120) as http:
            if not stream:
                r = await http.post(url, json=self.body(), headers=self.auth())
                body = r.json() if r.headers.get("content-type", "").startswith("application/json") else None
                final = body
            else:
                async with http.stream("POST", url, json=self.body(stream=True), headers=self.auth()) as r:
                    raw = (await r.aread()).decode()
                events = [line[6:] for line in raw.splitlines() if line.startswith("data: ")]
                chunks = [json.loads(e) for e in events if e != "[DONE]"]
                final = next((c for c in reversed(chunks) if c.get("platform")), None)
                body = {"events": len(events), "done": events[-1:] == ["[DONE]"]}
        header = r.headers.get("payment-response")
        response = json.loads(base64.b64decode(header)) if header else None
        settlement = (final or {}).get("platform", {}).get("settlement")
        offer = seen.get("offer")
        accepts = [a.model_dump(by_alias=True, exclude_none=True) for a in offer.accepts] if offer else []
        chosen = seen.get("chosen")
        result = {"label": label, "status": r.status_code, "stream": stream, "accepts": accepts,
                  "chosen": chosen.scheme if chosen else None,
                  "max": int(chosen.amount) if chosen else None,
                  "payment_response": response, "settlement": settlement, "header": seen.get("header"),
                  "usage": (final or {}).get("usage"), "body": body}
        return result

    # ---------------------------------------------------------------- the run

    async def payments(self):
        print("payments (the official Python client x402HttpxClient, x402 2.25.0):", flush=True)
        runs = []
        for label, schemes, stream, want in (("upto, whole", ("exact", "upto"), False, "upto"),
                                             ("exact, whole", ("exact",), False, "exact"),
                                             ("upto, streamed", ("exact", "upto"), True, "upto")):
            before = self.balances()
            t0 = time.monotonic()
            p = await self.pay(label, schemes, stream)
            p["seconds"] = time.monotonic() - t0
            after = self.balances()
            p["moved"] = (before[0] - after[0], after[1] - before[1])
            runs.append(p)
            self.judge(p, want)
        return runs

    def judge(self, p, want):
        label = p["label"]
        accepts = p["accepts"]
        offered = [a["scheme"] for a in accepts]
        self.check(offered == ["upto", "exact"] and len({a["amount"] for a in accepts}) == 1
                   and accepts[0]["extra"].get("facilitatorAddress") == self.fac.address
                   and all(a["payTo"] == self.payee.address and a["asset"] == self.token_address
                           and a["network"] == NETWORK for a in accepts),
                   f"{label}: the 402 offered {offered} for {accepts[0]['amount'] if accepts else '?'} units "
                   "to pay_to in TestUSD, upto naming the facilitator's settler")
        self.check(p["status"] == 200 and p["chosen"] == want,
                   f"{label}: the client paid {p['chosen']} (max {p['max']}), answered {p['status']}")
        s, pr = p["settlement"] or {}, p["payment_response"]
        if p["stream"] and want == "upto":
            ok = s.get("status") == "settled" and s.get("scheme") == "upto" and pr is None
            where = "final chunk's platform.settlement (no PAYMENT-RESPONSE on an upto stream)"
            p["reported"] = int(s.get("amount", -1)) if ok else None
            p["tx"] = s.get("transaction")
            ok = ok and p["body"]["done"]
        else:
            ok = (pr is not None and pr.get("success") is True and s.get("status") == "settled"
                  and s.get("scheme") == want and pr.get("amount") == s.get("amount")
                  and pr.get("transaction") == s.get("transaction") and pr.get("network") == NETWORK
                  and pr.get("payer") == self.payer.address)
            where = "PAYMENT-RESPONSE and platform.settlement agree"
            p["reported"] = int(pr["amount"]) if ok else None
            p["tx"] = pr.get("transaction") if pr else None
        self.check(ok and p["tx"], f"{label}: settled {s.get('amount')} units in {short(p['tx'] or '')}; {where}")
        if want == "exact":
            self.check(p["reported"] == p["max"], f"{label}: exact settled the whole offer ({p['max']})")
        else:
            self.check(p["reported"] is not None and 0 < p["reported"] < p["max"],
                       f"{label}: upto settled {p['reported']} < the {p['max']} authorized")
        self.check(p["moved"] == (p["reported"], p["reported"]),
                   f"{label}: on chain the payer paid {p['moved'][0]} and pay_to got {p['moved'][1]}")
        self.check_transaction(p, want)

    def check_transaction(self, p, want):
        label = p["label"]
        if not p.get("tx"):
            return self.check(False, f"{label}: no transaction to look at")
        receipt = self.w3.eth.get_transaction_receipt(p["tx"])
        tx = self.w3.eth.get_transaction(p["tx"])
        transfers = [log for log in receipt.logs if log.address == self.token_address
                     and log.topics[0].to_0x_hex() == TRANSFER_TOPIC]
        moved = [(to_checksum_address(log.topics[1][-20:]), to_checksum_address(log.topics[2][-20:]),
                  int.from_bytes(log.data, "big")) for log in transfers]
        target = UPTO_PROXY if want == "upto" else self.token_address
        p["gas"] = receipt.gasUsed
        p["block"] = receipt.blockNumber
        self.check(receipt.status == 1 and tx["from"] == self.fac.address and tx["to"] == target
                   and moved == [(self.payer.address, self.payee.address, p["reported"])],
                   f"{label}: transaction {short(p['tx'])} (block {receipt.blockNumber}, gas {receipt.gasUsed:,}) "
                   f"sent by the facilitator to the {'upto proxy' if want == 'upto' else 'token'}, "
                   f"one Transfer(payer -> pay_to, {p['reported']})")

    def replays(self, runs):
        print("replays (a PAYMENT-SIGNATURE already paid, sent again with plain httpx):", flush=True)
        out = []
        for p in runs[:2]:
            before = self.balances()
            asked = len(self.facilitator_calls())
            r = httpx.post(self.base + "/v1/chat/completions", json=self.body(),
                           headers={**self.auth(), **p["header"]}, timeout=60)
            error = r.json().get("error", {}) if r.headers.get("content-type", "").startswith("application/json") else {}
            after = self.balances()
            self.check(r.status_code == 402 and error.get("code") == "invalid_payment"
                       and "payment-required" in r.headers and after == before
                       and len(self.facilitator_calls()) == asked,
                       f"replay of the {p['chosen']} payment to the gateway: {r.status_code} {error.get('code')} "
                       f"(\"{error.get('message')}\"), balances unchanged, the facilitator not asked")
            # The chain refuses it too: the same payment straight to the facilitator's /verify,
            # which simulates the settlement (the nonce is spent: EIP-3009's authorizationState,
            # Permit2's nonce bitmap).
            payload = json.loads(base64.b64decode(p["header"]["PAYMENT-SIGNATURE"]))
            v = httpx.post(self.fac_url + "/verify", json={"x402Version": 2, "paymentPayload": payload,
                                                          "paymentRequirements": payload["accepted"]},
                           timeout=30).json()
            spent = self.nonce_spent(payload["payload"])
            self.check(v.get("isValid") is False and spent and self.balances() == before,
                       f"replay of the {p['chosen']} payment to the facilitator's /verify: invalid "
                       f"({v.get('invalidReason')}); its nonce is spent on the chain ({spent})")
            out.append({"label": p["label"], "status": r.status_code, "code": error.get("code"),
                        "message": error.get("message"), "facilitator": v.get("invalidReason")})
        return out

    def nonce_spent(self, inner):
        """Where the chain says `inner`'s nonce was used, or None: TestUSD's
        authorizationState(from, nonce) for EIP-3009, Permit2's nonceBitmap(owner, word) bit for
        Permit2 (unordered nonces: word nonce >> 8, bit nonce & 255)."""
        if "authorization" in inner:
            a = inner["authorization"]
            used = self.token.functions.authorizationState(a["from"], bytes.fromhex(a["nonce"][2:])).call()
            return "TestUSD.authorizationState is true" if used else None
        a = inner["permit2Authorization"]
        nonce = int(a["nonce"], 0) if str(a["nonce"]).startswith("0x") else int(a["nonce"])
        data = keccak(b"nonceBitmap(address,uint256)")[:4] + abi_encode(["address", "uint256"], [a["from"], nonce >> 8])
        word = int.from_bytes(self.w3.eth.call({"to": PERMIT2, "data": "0x" + data.hex()}), "big")
        return "its bit in Permit2.nonceBitmap is set" if word >> (nonce & 0xFF) & 1 else None

    def facilitator_calls(self, route=None):
        """What the facilitator was asked so far (/verify and /settle; `route` only)."""
        try:
            lines = open(self.fac_log).read().splitlines()
        except OSError:
            return []
        calls = [json.loads(line) for line in lines]
        return [c for c in calls if c["route"] == route or (route is None and c["route"] != "supported")]

    def check_facilitator(self, runs):
        """What the gateway asked the facilitator: upto /settle for the actual amount, the
        signed maximum left in `accepted` and the permit."""
        settles = self.facilitator_calls("settle")
        verifies = self.facilitator_calls("verify")
        self.check(len(verifies) == len(runs) and all(v["answer"].get("isValid") for v in verifies)
                   and len(settles) == len(runs) and all(s["answer"].get("success") for s in settles),
                   f"facilitator: {len(verifies)} /verify (all valid), {len(settles)} /settle (all successful)")
        for p, s in zip(runs, settles):
            req = s["request"]
            amount = int(req["paymentRequirements"]["amount"])
            accepted = int(req["paymentPayload"]["accepted"]["amount"])
            inner = req["paymentPayload"]["payload"]
            signed = int(inner["permit2Authorization"]["permitted"]["amount"]) if "permit2Authorization" in inner \
                else int(inner["authorization"]["value"])
            self.check(amount == p["reported"] and accepted == signed == p["max"]
                       and s["answer"].get("transaction") == p["tx"],
                       f"{p['label']}: /settle asked {amount} (paymentRequirements.amount), "
                       f"the signature covering {signed}")

    async def main(self):
        t0 = time.monotonic()
        print("setup:", flush=True)
        self.start_anvil()
        self.setup_chain()
        self.start_facilitator()
        self.start_gateway()
        start = self.balances()
        runs = await self.payments()
        self.check_facilitator(runs)
        replays = self.replays(runs)
        print("totals:", flush=True)
        end = self.balances()
        reported = sum(p["reported"] or 0 for p in runs)
        self.check(start[0] - end[0] == reported and end[1] - start[1] == reported,
                   f"on chain: payer {start[0]:,} -> {end[0]:,}, pay_to {start[1]:,} -> {end[1]:,}; "
                   f"moved {end[1] - start[1]:,} = {reported:,} reported settled by the gateway")
        self.report(start, end, runs, replays, time.monotonic() - t0)

    def report(self, start, end, runs, replays, seconds):
        f = self.figures
        print("\nreport:")
        print(f"  anvil {f['anvil']} (chain 31337, hardfork {f['hardfork']}); x402 (PyPI) {self.args.x402_version}; "
              f"{f['solc']}, @openzeppelin/contracts {f['openzeppelin']}")
        print(f"  Permit2: runtime from @uniswap/v4-periphery 1.0.3, patched (code hash "
              f"{f['permit2_codehash_patched'][:10]}...); upto proxy: the replica (code hash {f['upto_codehash'][:10]}...)")
        print(f"  payer {short(self.payer.address)}  pay_to {short(self.payee.address)}  "
              f"facilitator {short(self.fac.address)}  TestUSD {short(self.token_address)}")
        print(f"  {'payment':<16}{'offered':>9}{'settled':>9}  {'transaction':<15}{'gas':>8}  time")
        for p in runs:
            print(f"  {p['label']:<16}{p['max'] or 0:>9}{p['reported'] or 0:>9}  {short(p['tx'] or '-'):<15}"
                  f"{p.get('gas', 0):>8,}  {p['seconds']:.2f} s")
        for r in replays:
            print(f"  replay of {r['label']}: gateway {r['status']} {r['code']}; facilitator /verify: {r['facilitator']}")
        print(f"  balances (atomic units, 6 decimals): payer {start[0]:,} -> {end[0]:,}; "
              f"pay_to {start[1]:,} -> {end[1]:,}")
        failed = [what for ok, what in self.checks if not ok]
        print(f"  {len(self.checks) - len(failed)}/{len(self.checks)} checks hold; {seconds:.1f} s from anvil's start")
        with open(os.path.join(self.work, "run.json"), "w") as out:
            json.dump({"runs": [{k: v for k, v in p.items() if k != "header"} for p in runs],
                       "replays": replays, "start": start, "end": end, "figures": f}, out, indent=1, default=str)
        if failed:
            print("failed:")
            for what in failed:
                print(f"  - {what}")
            raise SystemExit(1)


def permit2_separator(chain_id):
    typehash = keccak(b"EIP712Domain(string name,uint256 chainId,address verifyingContract)")
    return keccak(abi_encode(["bytes32", "bytes32", "uint256", "address"],
                             [typehash, keccak(b"Permit2"), chain_id, PERMIT2]))


def short(text):
    return text if len(text) <= 14 else f"{text[:8]}...{text[-4:]}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--anvil", required=True)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--pidfile", required=True)
    ap.add_argument("--permit2-runtime", required=True)
    ap.add_argument("--credit-price", default="1000000")
    ap.add_argument("--x402-version", default="?")
    args = ap.parse_args()
    run = Run(args)
    try:
        asyncio.run(run.main())
    finally:
        run.stop_all()


if __name__ == "__main__":
    main()
