"""A local x402 facilitator for reliability/x402_chain.sh: the official Python package's
facilitator mechanisms (x402==2.25.0: FacilitatorWeb3Signer, register_exact_evm_facilitator for
`exact` with EIP-3009, UptoEvmFacilitatorScheme for `upto` through Permit2 and the upto proxy)
behind the three routes of the x402 facilitator API, as x402's own FastAPI example serves them
(the package ships no server): GET /supported, POST /verify, POST /settle.

Every request and answer is appended to --log (JSON lines), so the harness can check what the
gateway asked (an `upto` /settle must carry the actual amount, the signed maximum staying in
`accepted`). Listens on 127.0.0.1, on a port of the system's choosing written to --port-file.
The signing key comes from the environment (FACILITATOR_KEY), not the command line.

    python facilitator.py --rpc http://127.0.0.1:PORT --network eip155:31337 \
        --port-file WORK/facilitator.port --log WORK/facilitator.jsonl
"""

import argparse
import asyncio
import json
import os
import socket

import uvicorn
from fastapi import FastAPI, Request
from x402 import x402Facilitator
from x402.mechanisms.evm import FacilitatorWeb3Signer
from x402.mechanisms.evm.exact import register_exact_evm_facilitator
from x402.mechanisms.evm.upto import UptoEvmFacilitatorScheme
from x402.schemas import PaymentRequirements, parse_payment_payload


def build(rpc, network, key, log_path):
    signer = FacilitatorWeb3Signer(private_key=key, rpc_url=rpc)
    facilitator = x402Facilitator()
    register_exact_evm_facilitator(facilitator, signer, networks=network)
    facilitator.register([network], UptoEvmFacilitatorScheme(signer))
    app = FastAPI()

    def record(route, body, answer):
        with open(log_path, "a") as f:
            f.write(json.dumps({"route": route, "request": body, "answer": answer}) + "\n")

    @app.get("/supported")
    async def supported():
        answer = facilitator.get_supported().model_dump(by_alias=True, exclude_none=True)
        record("supported", None, answer)
        return answer

    async def call(route, request, method):
        body = await request.json()
        result = await method(parse_payment_payload(body["paymentPayload"]),
                              PaymentRequirements.model_validate(body["paymentRequirements"]))
        answer = result.model_dump(by_alias=True, exclude_none=True)
        record(route, body, answer)
        return answer

    @app.post("/verify")
    async def verify(request: Request):
        return await call("verify", request, facilitator.verify)

    @app.post("/settle")
    async def settle(request: Request):
        return await call("settle", request, facilitator.settle)

    return app


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rpc", required=True)
    ap.add_argument("--network", default="eip155:31337")
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    args = ap.parse_args()
    app = build(args.rpc, args.network, os.environ["FACILITATOR_KEY"], args.log)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(sock.getsockname()[1]))
    os.replace(tmp, args.port_file)
    asyncio.run(server.serve(sockets=[sock]))


if __name__ == "__main__":
    main()
