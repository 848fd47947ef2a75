SELECT 'demo';
