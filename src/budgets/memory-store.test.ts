import { runBudgetStoreContract } from '../../test/contracts/budget-store.contract.js';
import { createMemoryBudgetStore } from './memory-store.js';

runBudgetStoreContract('memory', { newStore: () => createMemoryBudgetStore() });
