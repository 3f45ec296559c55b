const fs = require('node:fs');
const yaml = require('js-yaml');

const config = yaml.load(fs.readFileSync('config.yml', 'utf8'));

import fs from 'node:fs';
import yaml from 'js-yaml';

const config = yaml.load(fs.readFileSync('config.yml', 'utf8'));
