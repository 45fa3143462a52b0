import { adapterSuite } from './suite.js';

adapterSuite('svelte');
