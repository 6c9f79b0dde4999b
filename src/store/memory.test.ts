import { MemoryStore } from './memory.js';
import { storeContract } from './contract.case.js';

storeContract('memory', async () => new MemoryStore());
