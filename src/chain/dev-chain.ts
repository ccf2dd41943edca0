// The embedded EVM development chain: a Hardhat 2 network (EDR) in a child process on 127.0.0.1,
// a test ERC-20 compiled from OpenZeppelin 5 by solc (cached under the data dir), and funding.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createPublicClient, createWalletClient, http } from 'viem';
import { chainFor } from './rpc.ts';
import type { Abi, Address, Chain, Hex, PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

const require = createRequire(import.meta.url);

/** The chain id of the development chain (Hardhat's usual one). */
export const DEV_CHAIN_ID = 31337;

// A test token whose decimals are chosen at deployment, and one without decimals() (an asset
// that cannot back a budget until an operator sets them). `mint` is open: this is a dev token.
const TOKEN_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;
import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
contract TestToken is ERC20 {
    uint8 private immutable _tokenDecimals;
    constructor(string memory name_, string memory symbol_, uint8 decimals_, uint256 supply) ERC20(name_, symbol_) {
        _tokenDecimals = decimals_;
        _mint(msg.sender, supply);
    }
    function decimals() public view override returns (uint8) { return _tokenDecimals; }
    function mint(address to, uint256 amount) external { _mint(to, amount); }
}
// Tokens the payout does not support (docs/payout.md, "Tokens"): one whose transfer returns false
// and moves nothing, one that keeps a fee of 1% on every transfer.
contract FalseToken {
    mapping(address => uint256) public balanceOf;
    function decimals() external pure returns (uint8) { return 6; }
    function mint(address to, uint256 amount) external { balanceOf[to] += amount; }
    function transfer(address, uint256) external pure returns (bool) { return false; }
}
contract FeeToken is ERC20 {
    constructor() ERC20("Fee token", "FEE") {}
    function decimals() public pure override returns (uint8) { return 6; }
    function mint(address to, uint256 amount) external { _mint(to, amount); }
    function _update(address from, address to, uint256 value) internal override {
        if (from == address(0) || to == address(0)) return super._update(from, to, value);
        uint256 fee = value / 100;
        super._update(from, address(0xFEE), fee);
        super._update(from, to, value - fee);
    }
}
contract NoDecimalsToken {
    mapping(address => uint256) public balanceOf;
    event Transfer(address indexed from, address indexed to, uint256 value);
    constructor(uint256 supply) { balanceOf[msg.sender] = supply; }
    function transfer(address to, uint256 value) external returns (bool) {
        balanceOf[msg.sender] -= value;
        balanceOf[to] += value;
        emit Transfer(msg.sender, to, value);
        return true;
    }
}
`;

export interface CompiledContract {
  abi: Abi;
  bytecode: Hex;
}

export interface CompiledTokens {
  TestToken: CompiledContract;
  NoDecimalsToken: CompiledContract;
  FalseToken: CompiledContract;
  FeeToken: CompiledContract;
}

/**
 * The EVM the test tokens are compiled for: London, the oldest the supported networks run (Kaia and
 * ganache are London; PUSH0 and MCOPY of Shanghai and Cancun would be "invalid opcode" there). The
 * same bytecode runs on every later EVM (docs/payout.md, "The development chain").
 */
export const TEST_TOKEN_EVM_VERSION = 'london';

interface SolcOutput {
  errors?: Array<{ severity: string; formattedMessage: string }>;
  contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
}

/**
 * Compiles the test tokens with solc (npm), reading OpenZeppelin's sources from node_modules, once:
 * the artifact is cached under `dataDir/chain/` keyed by the source and the compiler version.
 */
export function compileTestTokens(dataDir: string): CompiledTokens {
  // Keyed by the compiler's package version, so that a cached start never loads solc (seconds of
  // WebAssembly on the event loop).
  const solcVersion = (require('solc/package.json') as { version: string }).version;
  const ozVersion = (require('@openzeppelin/contracts/package.json') as { version: string }).version;
  const key = createHash('sha256')
    .update(TOKEN_SOURCE)
    .update(solcVersion)
    .update(ozVersion)
    .update(TEST_TOKEN_EVM_VERSION)
    .digest('hex')
    .slice(0, 16);
  const cacheFile = path.join(dataDir, 'chain', `test-tokens-${key}.json`);
  if (existsSync(cacheFile)) return JSON.parse(readFileSync(cacheFile, 'utf8')) as CompiledTokens;
  const solc = require('solc') as {
    compile(
      input: string,
      callbacks: { import(p: string): { contents: string } | { error: string } },
    ): string;
  };
  const input = {
    language: 'Solidity',
    sources: { 'TestToken.sol': { content: TOKEN_SOURCE } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: TEST_TOKEN_EVM_VERSION,
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const readImport = (importPath: string) => {
    try {
      return { contents: readFileSync(require.resolve(importPath), 'utf8') };
    } catch {
      return { error: `not found: ${importPath}` };
    }
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: readImport })) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc: ${errors.map((e) => e.formattedMessage).join('\n')}`);
  const pick = (name: string): CompiledContract => {
    const contract = output.contracts['TestToken.sol']?.[name];
    if (!contract) throw new Error(`solc produced no ${name}`);
    return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  };
  const compiled: CompiledTokens = {
    TestToken: pick('TestToken'),
    NoDecimalsToken: pick('NoDecimalsToken'),
    FalseToken: pick('FalseToken'),
    FeeToken: pick('FeeToken'),
  };
  mkdirSync(path.dirname(cacheFile), { recursive: true });
  writeFileSync(cacheFile, JSON.stringify(compiled));
  return compiled;
}

export interface DevChainOptions {
  /** Folder for the compiled-artifact cache and the chain's config file. */
  dataDir: string;
  /** Port on 127.0.0.1; 0 (the default) takes a free one. */
  port?: number;
  /** 0 (the default) mines each transaction at once; otherwise a block every so many ms. */
  blockIntervalMs?: number;
  /** Refuses to start when 'production' (a dev chain is never a real network). */
  nodeEnv?: string;
  /** The EVM of the chain (default 'cancun'); tests run 'london' to check the tokens deploy there. */
  hardfork?: 'london' | 'shanghai' | 'cancun';
  /** How long the chain's process may take to listen (default 30 s). */
  startTimeoutMs?: number;
  /**
   * The funded deployer's key; new at each start by default. A fixed one makes the first token
   * deployed land at the same address after every restart (docs/payout.md, "The development chain").
   */
  funderKey?: Hex;
}

export interface DevChain {
  rpcUrl: string;
  chainId: number;
  chain: Chain;
  /** A client for reads and dev-only methods (evm_snapshot, hardhat_setBalance ...). */
  client: PublicClient;
  /** The account holding the dev chain's coins and the tokens it deploys. */
  funder: { address: Address; privateKey: Hex };
  /** Deploys a TestToken with these decimals; the whole supply goes to the funder. */
  deployToken(options: { decimals: number; symbol?: string; supply?: bigint }): Promise<Address>;
  /** Deploys a token contract that has no decimals(). */
  deployTokenWithoutDecimals(supply?: bigint): Promise<Address>;
  /** Deploys a token the payout does not support: 'false' (transfer returns false), 'fee' (keeps 1%). */
  deployUnsupportedToken(kind: 'false' | 'fee'): Promise<Address>;
  /** Sets an address's native balance (dev-only method). */
  setNativeBalance(address: Address, wei: bigint): Promise<void>;
  /** Mints test tokens to an address. */
  mintToken(token: Address, to: Address, amount: bigint): Promise<void>;
  tokenBalance(token: Address, owner: Address): Promise<bigint>;
  stop(): Promise<void>;
}

function waitForListening(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => reject(new Error(`dev chain did not start within ${timeoutMs} ms: ${output.slice(0, 500)}`)),
      timeoutMs,
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /JSON-RPC server at (http:\/\/[\d.]+:\d+)\//.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        // Hardhat prints the funded accounts next; nobody reads them, but the pipe must not fill.
        output = '';
        child.stdout?.removeAllListeners('data');
        child.stdout?.resume();
        resolve(match[1]);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`dev chain exited with ${code}: ${output.slice(0, 500)}`));
    });
  });
}

/**
 * Runs Hardhat's CLI (`process.argv[1]` of `node -e <this> cli.js node ...`, as if run as a script)
 * and exits when its stdin ends: the service's end of that pipe closes however the service ends, a
 * SIGKILL or a crash included, which no shutdown hook sees. Without it a killed service left its
 * chain running, listening, holding its memory (test/process.happy.test.ts).
 */
const EXIT_WITH_PARENT = `
  process.stdin.on('end', () => process.exit(0));
  process.stdin.on('error', () => process.exit(0));
  process.stdin.resume();
  require(process.argv[1]);
`;

/** Starts the development chain in a child process and answers when it takes JSON-RPC calls. */
export async function startDevChain(options: DevChainOptions): Promise<DevChain> {
  if (options.nodeEnv === 'production')
    throw new Error('the embedded development chain is refused when NODE_ENV=production');
  const tokens = compileTestTokens(options.dataDir);
  const funderKey = options.funderKey ?? generatePrivateKey();
  const funder = privateKeyToAccount(funderKey);
  const chainDir = path.join(options.dataDir, 'chain');
  mkdirSync(chainDir, { recursive: true });
  // A config of this start only: the funder key is new each time and never leaves the data dir.
  const configFile = path.join(chainDir, `hardhat.config.${process.pid}.${Date.now()}.cjs`);
  const mining = options.blockIntervalMs
    ? { auto: false, interval: options.blockIntervalMs }
    : { auto: true, interval: 0 };
  const networkConfig = {
    chainId: DEV_CHAIN_ID,
    loggingEnabled: false,
    // Like a real node: a transaction that reverts is mined and answered with its hash, not an error.
    throwOnTransactionFailures: false,
    hardfork: options.hardfork ?? 'cancun',
    mining,
    accounts: [{ privateKey: funderKey, balance: (10n ** 30n).toString() }],
    // Payouts set their own fixed gas limits; a large block fits a whole batch of them.
    blockGasLimit: 300_000_000,
  };
  writeFileSync(
    configFile,
    `module.exports = ${JSON.stringify({ networks: { hardhat: networkConfig } })};\n`,
    { mode: 0o600 },
  );
  const cli = require.resolve('hardhat/internal/cli/cli.js');
  // Hardhat insists on running from a folder whose node_modules holds it.
  const projectRoot = path.resolve(path.dirname(require.resolve('hardhat/package.json')), '..', '..');
  const child = spawn(
    process.execPath,
    [
      '-e',
      EXIT_WITH_PARENT,
      cli,
      'node',
      '--hostname',
      '127.0.0.1',
      '--port',
      String(options.port ?? 0),
      '--config',
      configFile,
    ],
    {
      cwd: projectRoot,
      env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true', NODE_OPTIONS: '' },
      // stdin: a pipe from this process, closed by the kernel however this process ends.
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let rpcUrl: string;
  try {
    rpcUrl = await waitForListening(child, options.startTimeoutMs ?? 30_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  const chain = chainFor(DEV_CHAIN_ID, rpcUrl, 'dev chain');
  const client = createPublicClient({ chain, transport: http(rpcUrl) }) as PublicClient;
  const wallet = createWalletClient({ account: funder, chain, transport: http(rpcUrl) });
  const mineIfManual = async () => {
    if (options.blockIntervalMs) await client.request({ method: 'evm_mine' as never, params: [] as never });
  };
  const deploy = async (contract: CompiledContract, args: unknown[]): Promise<Address> => {
    const hash = await wallet.deployContract({ abi: contract.abi, bytecode: contract.bytecode, args });
    await mineIfManual();
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    if (!receipt.contractAddress) throw new Error('deployment produced no contract');
    return receipt.contractAddress;
  };
  return {
    rpcUrl,
    chainId: DEV_CHAIN_ID,
    chain,
    client,
    funder: { address: funder.address, privateKey: funderKey },
    deployToken: ({ decimals, symbol = 'TST', supply = 10n ** 40n }) =>
      deploy(tokens.TestToken, [`Test ${symbol}`, symbol, decimals, supply]),
    deployTokenWithoutDecimals: (supply = 10n ** 30n) => deploy(tokens.NoDecimalsToken, [supply]),
    deployUnsupportedToken: (kind) => deploy(kind === 'false' ? tokens.FalseToken : tokens.FeeToken, []),
    async setNativeBalance(address, wei) {
      await client.request({
        method: 'hardhat_setBalance' as never,
        params: [address, `0x${wei.toString(16)}`] as never,
      });
    },
    async mintToken(token, to, amount) {
      const hash = await wallet.writeContract({
        address: token,
        abi: tokens.TestToken.abi,
        functionName: 'mint',
        args: [to, amount],
      });
      await mineIfManual();
      await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    },
    async tokenBalance(token, owner) {
      return (await client.readContract({
        address: token,
        abi: tokens.TestToken.abi,
        functionName: 'balanceOf',
        args: [owner],
      })) as bigint;
    },
    async stop() {
      // Ended already (a second stop, or killed): a signal leaves exitCode null but sets signalCode.
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      // Nothing of a dev chain outlives it, so there is no shutdown to wait for.
      child.kill('SIGKILL');
      await exited;
      rmSync(configFile, { force: true });
    },
  };
}
