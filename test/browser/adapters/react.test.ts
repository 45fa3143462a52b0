import { adapterSuite } from './suite.js';

adapterSuite('react');
